// SPDX-License-Identifier: Apache-2.0
import AccelCore
import AccelParts

/// The part's FIFO in stream mode: its settings, its status, and reading
/// many samples in one transfer: from the output registers (LIS3DH), as
/// tagged words carrying both sensors (LSM6DSO), or as a pattern of
/// untagged words (LSM6DSL, LSM6DS3).
extension Accelerometer {
    /// The FIFO's fields for `watermark` samples (0: bypass) at `rate`.
    func fifoSettings(_ fifo: ChipProfile.FIFO, watermark: Int, rate: ChipProfile.Rate) -> [ChipProfile.Setting] {
        let watermark = min(max(watermark, 0), fifo.watermarkLimit)
        let on = watermark > 0
        var settings = [ChipProfile.Setting(fifo.modeField, on ? fifo.streamCode : fifo.bypassCode)]
        if let enable = fifo.enable { settings.append(ChipProfile.Setting(enable, on ? 1 : 0)) }
        settings += fifo.batchRateFields.map { ChipProfile.Setting($0, on ? rate.code : 0) }
        settings += fifo.streamSettings.map { ChipProfile.Setting($0.field, on ? $0.value : 0) }
        // The LIS3DH family's WTM rises when the FIFO holds more than FTH
        // samples, the six-axis parts' at the watermark: both at `watermark`.
        let threshold = fifo.layout == .outputRegisters ? watermark - 1 : watermark
        if on { settings.append(ChipProfile.Setting(fifo.watermarkField, UInt8(threshold * fifo.entriesPerSample))) }
        return settings
    }

    /// Turns the FIFO on in stream mode with `watermark` (or off, with 0)
    /// without touching the rest: no new phase, no turn-on time.
    public func setFIFOWatermark(_ watermark: Int) throws {
        guard profile.fifo != nil, var wanted = configuration else { return }
        wanted.fifoWatermark = watermark
        try apply(wanted)
    }

    /// The FIFO's status, decoded.
    public struct FIFOStatus: Sendable, Equatable {
        /// Whole samples waiting.
        public var level: Int
        /// The FIFO filled up: in stream mode the oldest samples were overwritten.
        public var overrun: Bool
        /// The status bytes, little-endian (FIFO_SRC; FIFO_STATUS1 to 2 or 4).
        public var raw: UInt32
        /// Entries to read and drop before the first whole sample: the
        /// rest of a pattern whose first words an overflow took.
        public var partial = 0
    }

    /// A FIFO status that contradicts itself, a level the FIFO cannot
    /// hold, or a word with a tag nothing batches: a bus glitch or a chip
    /// that is not what it claims. The sampler counts it as a fault and
    /// reads again; nothing is published from it.
    public struct FIFOStatusError: Error, Equatable, CustomStringConvertible {
        public let raw: UInt32
        public let reason: String
        public var description: String { "FIFO status \(hex(raw)) is impossible (\(reason)): treated as a bus fault" }
    }

    /// Reads the FIFO's status: how many samples wait, and whether some
    /// were lost. `readFIFO` then reads from the first whole sample.
    public func readFIFOStatus() throws -> FIFOStatus {
        guard let fifo = profile.fifo else { return FIFOStatus(level: 0, overrun: false, raw: 0) }
        var bytes: (UInt8, UInt8, UInt8, UInt8) = (0, 0, 0, 0)
        if fifo.statusLength == 1 {
            bytes.0 = try bus.readRegister(fifo.statusRegister)
        } else {
            try withUnsafeMutableBytes(of: &bytes) { buffer in
                try bus.readBlock(from: profile.burstAddress(fifo.statusRegister), into: UnsafeMutableRawBufferPointer(rebasing: buffer[..<fifo.statusLength]))
            }
        }
        let raw = UInt32(bytes.3) << 24 | UInt32(bytes.2) << 16 | UInt32(bytes.1) << 8 | UInt32(bytes.0)
        let empty = raw & fifo.emptyFlag != 0, overrun = raw & fifo.overrunFlag != 0
        let entries = overrun && fifo.overrunMeansFull ? fifo.depth : Int(raw & fifo.levelMask)
        if empty && entries != 0 { throw FIFOStatusError(raw: raw, reason: "EMPTY with \(entries) entries stored") }
        if empty && overrun { throw FIFOStatusError(raw: raw, reason: "EMPTY and overrun at once") }
        if entries > fifo.depth { throw FIFOStatusError(raw: raw, reason: "\(entries) entries in a FIFO of \(fifo.depth)") }
        var partial = 0
        if case .pattern(let mask) = fifo.layout {
            let next = Int((raw & mask) >> UInt32(mask.trailingZeroBitCount))
            if next >= fifo.entriesPerSample { throw FIFOStatusError(raw: raw, reason: "word \(next) of a \(fifo.entriesPerSample)-word pattern") }
            partial = min((fifo.entriesPerSample - next) % fifo.entriesPerSample, entries)
        }
        fifoPartial = partial
        return FIFOStatus(level: (entries - partial) / fifo.entriesPerSample, overrun: overrun, raw: raw, partial: partial)
    }

    /// Reads the oldest `count` samples out of the FIFO, oldest first, in
    /// one transfer (the auto-increment wraps to the FIFO's first data
    /// register after each entry), after the partial pattern the last
    /// status found. An adapter limited to SMBus block reads gets whole
    /// entries in chunks of at most 32 bytes, one transfer each.
    public func readFIFO(count: Int, into samples: inout [Reading]) throws {
        samples.removeAll(keepingCapacity: true)
        guard let fifo = profile.fifo, count > 0 else { return }
        let skipped = fifoPartial * fifo.entryBytes
        fifoPartial = 0
        let entries = count * fifo.entriesPerSample, bytes = skipped + entries * fifo.entryBytes
        if fifoBytes.count < bytes { fifoBytes = [UInt8](repeating: 0, count: (fifo.depth + fifo.entriesPerSample) * fifo.entryBytes) }
        let chunk = max(bus.maximumReadLength / fifo.entryBytes, 1) * fifo.entryBytes
        let address = profile.burstAddress(fifo.dataRegister)
        try fifoBytes.withUnsafeMutableBytes { buffer in
            var offset = 0
            while offset < bytes {
                let length = min(chunk, bytes - offset)
                try bus.readBlock(from: address, into: UnsafeMutableRawBufferPointer(rebasing: buffer[offset..<offset + length]))
                offset += length
            }
        }
        switch fifo.layout {
        case .outputRegisters:
            for index in 0..<entries { samples.append(Reading(status: .dataReady, counts: counts(fifoBytes, at: index * fifo.entryBytes))) }
        case .pattern:
            // Gx, Gy, Gz, Ax, Ay, Az: two output slots of three words.
            for index in 0..<count {
                let offset = skipped + index * 12
                samples.append(Reading(status: .dataReady, counts: counts(fifoBytes, at: offset + 6), rotation: counts(fifoBytes, at: offset)))
            }
        case .tagged(let gyroscopeTag, let accelerometerTag, let ignored):
            try pairTagged(entries, gyroscope: gyroscopeTag, accelerometer: accelerometerTag, ignored: ignored, into: &samples)
        }
    }

    /// Each sample is a gyroscope word, then its accelerometer word; a
    /// pair may straddle two reads.
    private func pairTagged(_ entries: Int, gyroscope gyroscopeTag: UInt8, accelerometer accelerometerTag: UInt8, ignored: [UInt8],
                            into samples: inout [Reading]) throws {
        for index in 0..<entries {
            let offset = index * 7, tag = fifoBytes[offset] >> 3
            switch tag {
            case gyroscopeTag:
                pendingRotation = counts(fifoBytes, at: offset + 1)
            case accelerometerTag:
                let rotation = pendingRotation ?? lastRotation
                lastRotation = rotation
                pendingRotation = nil
                samples.append(Reading(status: .dataReady, counts: counts(fifoBytes, at: offset + 1), rotation: rotation))
            case _ where ignored.contains(tag):
                continue
            default:
                throw FIFOStatusError(raw: UInt32(fifoBytes[offset]), reason: "a FIFO word tagged \(hex(tag)), which nothing batches")
            }
        }
    }
}
