// SPDX-License-Identifier: Apache-2.0
import AccelCore
import AccelParts

// The chip model's FIFO in stream mode: what it queues per sample, and
// the six-axis FIFOs' registers (the LSM6DSO's FIFO_STATUS1/2 and
// FIFO_DATA_OUT_TAG..Z_H, the LSM6DSL's FIFO_STATUS1-4 and
// FIFO_DATA_OUT_L/H). The output-register FIFO's reads are in
// ChipModel+Registers.swift, beside the output registers they share.
extension ChipModel {
    /// Queues sample `index`, made at `instant` while the chip felt `felt`
    /// (g): its six output bytes; or
    /// its gyroscope's word and then its accelerometer's, each tagged with
    /// TAG_SENSOR, TAG_CNT (the sample's number modulo 4) and TAG_PARITY;
    /// or the pattern's six 16-bit words, the gyroscope's three first.
    func queue(sample index: UInt64, at instant: UInt64, felt: Vector3, _ spec: ChipProfile.FIFO) {
        let accelerometer = outputWords(felt: felt)
        switch spec.layout {
        case .outputRegisters:
            makeRoom(spec)
            fifo.append(accelerometer)
        case .tagged(let gyroscopeTag, let accelerometerTag, _):
            func tag(_ sensor: UInt8) -> UInt8 {
                let tag = sensor << 3 | UInt8(index & 3) << 1
                return tag | UInt8(tag.nonzeroBitCount & 1)
            }
            makeRoom(spec)
            fifo.append(tag: tag(gyroscopeTag), gyroscopeWords(at: instant, profile.gyroscope!))
            makeRoom(spec)
            fifo.append(tag: tag(accelerometerTag), accelerometer)
        case .pattern:
            let gyroscope = gyroscopeWords(at: instant, profile.gyroscope!)
            for word in [gyroscope.0, gyroscope.1, gyroscope.2, accelerometer.0, accelerometer.1, accelerometer.2] {
                makeRoom(spec)
                fifo.append(word: word)
            }
        }
    }

    /// A full FIFO in stream mode overwrites its oldest entry: a sample is
    /// lost with its only entry, its accelerometer's word, or its
    /// pattern's first word.
    private func makeRoom(_ spec: ChipProfile.FIFO) {
        guard fifo.isFull else { return }
        let position = fifoHeadPosition
        let first = popOldest(spec)
        switch spec.layout {
        case .outputRegisters: counters.samplesLost += 1
        case .tagged(_, let accelerometerTag, _): counters.samplesLost += first >> 3 == accelerometerTag ? 1 : 0
        case .pattern: counters.samplesLost += position == 0 ? 1 : 0
        }
        fifoOverrunLatched = true
    }

    /// Removes the oldest entry, keeping its place in the pattern; returns
    /// its first byte.
    @discardableResult
    private func popOldest(_ spec: ChipProfile.FIFO) -> UInt8 {
        fifoHeadPosition = (fifoHeadPosition + 1) % spec.entriesPerSample
        return fifo.removeOldest()
    }

    /// A burst from the first data register that the FIFO fills with
    /// whole entries, moved at once: what reading it register by register
    /// gives, without the register file per byte. False for any other
    /// read, which takes that path.
    func readFIFOBurst(from register: UInt8, into buffer: UnsafeMutableRawBufferPointer) -> Bool {
        guard let spec = profile.fifo, register == spec.dataRegister, fifoStreaming || spec.layout != .outputRegisters,
              buffer.count % spec.entryBytes == 0, buffer.count / spec.entryBytes <= fifo.count else { return false }
        let entries = buffer.count / spec.entryBytes
        fifo.move(into: buffer)
        fifoHeadPosition = (fifoHeadPosition + entries) % spec.entriesPerSample
        if spec.layout == .outputRegisters && fifo.isEmpty && entries > 0 { registers[Int(profile.statusRegister)] = 0 }
        return true
    }

    /// A six-axis FIFO's register, or nil for any other. The status: the
    /// level in entries, the watermark flag at or above the watermark, the
    /// empty flag, the pattern's next word; the overrun flags while full
    /// (`overrunMeansFull`: the level then reads short) or, latched, until
    /// the byte holding them is read (FIFO_OVR_LATCHED). The data: the
    /// oldest entry's bytes; reading its last byte pops it.
    func readFIFORegister(_ register: UInt8, _ spec: ChipProfile.FIFO) -> UInt8? {
        if register >= spec.statusRegister && register < spec.statusRegister + UInt8(spec.statusLength) {
            let level = fifo.count, watermark = Int(field(spec.watermarkField))
            let overrun = spec.overrunMeansFull ? level >= spec.depth : fifoOverrunLatched
            var value = UInt32(level) & spec.levelMask
            if watermark > 0 && level >= watermark { value |= spec.watermarkFlag }
            if overrun { value |= spec.overrunFlag }
            if level == 0 { value |= spec.emptyFlag }
            if case .pattern(let mask) = spec.layout { value |= UInt32(fifoHeadPosition) << UInt32(mask.trailingZeroBitCount) & mask }
            let byte = Int(register - spec.statusRegister)
            if byte == spec.overrunFlag.trailingZeroBitCount / 8 { fifoOverrunLatched = false }
            return UInt8(truncatingIfNeeded: value >> UInt32(8 * byte))
        }
        guard register >= spec.dataRegister && register < spec.dataRegister + UInt8(spec.entryBytes) else { return nil }
        guard !fifo.isEmpty else { return 0 }
        let index = Int(register - spec.dataRegister)
        let byte = fifo.oldest(index)
        if index == spec.entryBytes - 1 { popOldest(spec) }
        return byte
    }
}
