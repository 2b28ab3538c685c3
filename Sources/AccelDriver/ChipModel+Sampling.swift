// SPDX-License-Identifier: Apache-2.0
import AccelCore
import AccelParts

// The converter: the samples each transaction finds made since the last,
// from the motion source through the part's front end to output digits.
extension ChipModel {
    /// Produces every sample whose instant has passed since the last
    /// transaction. Without the FIFO only the newest survives in the output
    /// registers, the others are counted as lost, and overrun bits tell the
    /// reader; with it, each is queued and only a full FIFO loses the oldest.
    func catchUp() {
        guard poweredUp, let start = phaseStart, !dataReadyStuck else { return }
        let index = (time.nanoseconds - start) / periodNanoseconds
        if !pinRises.isEmpty { noteRises(through: index) }
        makeSamples(through: index)
    }

    /// Makes the samples up to number `index` (counted from phaseStart).
    func makeSamples(through index: UInt64) {
        guard let start = phaseStart else { return }
        let period = periodNanoseconds
        let firstValid = UInt64(profile.turnOnPeriods)
        guard index >= firstValid, index > lastSampleIndex else { return }
        let previous = max(lastSampleIndex, firstValid - 1)
        let fresh = Int(index - previous)
        lastSampleIndex = index
        counters.samplesProduced += fresh

        let status = profile.statusRegister
        let streaming = fifoStreaming ? profile.fifo : nil
        // Only the newest the FIFO holds survive (in part, the oldest of
        // them, where a sample's words do not divide its depth); the rest
        // are made and lost. The wake-up unit sees the last 256.
        let kept = streaming.map { min(fresh, ($0.depth + $0.entriesPerSample - 1) / $0.entriesPerSample) } ?? 0
        let wakeUp = wakeUpPass()
        let firstKept = index + 1 - UInt64(kept), firstWatched = max(previous + 1, index >= 255 ? index - 255 : 0)
        let first = wakeUp == nil ? firstKept : min(firstKept, firstWatched)
        for k in first..<index + 1 {
            // One specific force per sample, for the unit and the FIFO.
            let instant = start + k * period
            let felt = motion.specificForce(at: motionTime(instant))
            if let wakeUp, k >= firstWatched { runWakeUp(felt, wakeUp) }
            if let streaming, k >= firstKept { queue(sample: k, at: instant, felt: felt, streaming) }
        }
        if let spec = streaming {
            counters.samplesLost += fresh - kept
            if kept < fresh { fifoOverrunLatched = true }
            if spec.layout == .outputRegisters {
                registers[Int(status)] = 0x0F | (fifo.count == spec.depth ? 0xF0 : 0)
                return
            }
        }

        if let gyroscope = profile.gyroscope {
            // No overrun bit: an unread sample is simply replaced (lost,
            // unless the FIFO has it too).
            let unread = registers[Int(status)] & profile.statusBits.dataReady
            if !fifoStreaming { counters.samplesLost += fresh - 1 + (unread != 0 ? 1 : 0) }
            registers[Int(status)] |= profile.statusBits.dataReady | profile.statusBits.gyroscopeReady
            let instant = start + index * period
            store(outputWords(at: instant), at: Int(status) + profile.accelerometerOffset)
            store(gyroscopeWords(at: instant, gyroscope), at: Int(status) + gyroscope.dataOffset)
            return
        }
        var statusBits = registers[Int(status)]
        let unread = statusBits & 0x07
        counters.samplesLost += fresh - 1 + (unread != 0 ? 1 : 0)
        let overrun = fresh > 1 ? 0x07 : unread
        statusBits |= 0x07 | overrun << 4
        statusBits |= 0x08
        statusBits = statusBits & 0x70 != 0 ? statusBits | 0x80 : statusBits
        registers[Int(status)] = statusBits
        store(outputWords(at: start + index * period), at: Int(status) + 1)
    }

    /// Three 16-bit outputs, little-endian, from register `first`.
    func store(_ words: (UInt16, UInt16, UInt16), at first: Int) {
        registers[first] = UInt8(words.0 & 0xFF); registers[first + 1] = UInt8(words.0 >> 8)
        registers[first + 2] = UInt8(words.1 & 0xFF); registers[first + 3] = UInt8(words.1 >> 8)
        registers[first + 4] = UInt8(words.2 & 0xFF); registers[first + 5] = UInt8(words.2 >> 8)
    }

    /// The three left-justified output words of the sample made at
    /// `instant` (no allocation: replay makes millions of these).
    func outputWords(at instant: UInt64) -> (UInt16, UInt16, UInt16) {
        outputWords(felt: motion.specificForce(at: motionTime(instant)))
    }

    /// The output words of a sample whose specific force is `felt`, g.
    func outputWords(felt: Vector3) -> (UInt16, UInt16, UInt16) {
        var digits = convert(felt)
        if !imperfections.stuckOutputs.isEmpty {
            for (axis, stuck) in imperfections.stuckOutputs { digits[axis] = Double(stuck) }
        }
        let shift = 16 - derived.resolutionBits
        func word(_ value: Double) -> UInt16 { UInt16(bitPattern: Int16(truncatingIfNeeded: Int(value) << shift)) }
        return (word(digits.x), word(digits.y), word(digits.z))
    }

    /// Specific force in g to output digits, as the chip does it.
    private func convert(_ felt: Vector3) -> Vector3 {
        var g = felt
        if let test = profile.selfTest {
            let code = field(test.field)
            if code == test.code { g += selfTestForce(test) }
            else if code != 0 { g = g - selfTestForce(test) }
        }
        if derived.highPassed {
            // FDS: the output is high-passed. First-order filter with the
            // LIS302DL's cut-off ODR / (6 × 8·2^k), k from HP_coeff.
            let k = derived.highPassK
            let alpha = 1 / (6 * k / (2 * .pi) + 1)
            highPassReference = highPassReference + (g - highPassReference) * alpha
            g = g - highPassReference
        }
        let sensitivity = gPerDigit
        var chip = (g.scaled(by: Vector3(1, 1, 1) + imperfections.sensitivityError) + imperfections.offset) / sensitivity
        if imperfections.noise > 0 {
            let sigma = imperfections.noise / sensitivity
            chip += Vector3(random.gaussian(), random.gaussian(), random.gaussian()) * sigma
        }
        let limit = Double(1 << (derived.resolutionBits - 1))
        func digit(_ v: Double) -> Double { min(max(v.rounded(), -limit), limit - 1) }
        return Vector3(digit(chip.x), digit(chip.y), digit(chip.z))
    }

    /// The actuator's force: as set, or the middle of the published limits
    /// in the test's own conditions (smallest range, the test's mode).
    private func selfTestForce(_ test: ChipProfile.SelfTest) -> Vector3 {
        if let force = imperfections.selfTestForce { return force }
        let mode = profile.mode(named: test.mode)!
        let sensitivity = profile.sensitivity(fullScale: profile.ranges[0].fullScale, mode: mode)!
        // Whole digits, so that the deflection is exact whatever the rounding.
        func middle(_ limits: ClosedRange<Int>) -> Double { Double((limits.lowerBound + limits.upperBound) / 2) * sensitivity }
        return Vector3(middle(test.x), middle(test.y), middle(test.z))
    }
}
