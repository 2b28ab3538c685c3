// SPDX-License-Identifier: Apache-2.0
import AccelCore
import AccelParts

// The chip model's FIFO in stream mode: what it queues per sample, and
// the six-axis FIFOs' registers (the LSM6DSO's FIFO_STATUS1/2 and
// FIFO_DATA_OUT_TAG..Z_H, the LSM6DSL's FIFO_STATUS1-4 and
// FIFO_DATA_OUT_L/H). The output-register FIFO's reads are in
// ChipModel+Registers.swift, beside the output registers they share.
extension ChipModel {
    /// Queues sample `index`, made at `instant`: its six output bytes; or
    /// its gyroscope's word and then its accelerometer's, each tagged with
    /// TAG_SENSOR, TAG_CNT (the sample's number modulo 4) and TAG_PARITY;
    /// or the pattern's six 16-bit words, the gyroscope's three first.
    func queue(sample index: UInt64, at instant: UInt64, _ spec: ChipProfile.FIFO) {
        let accelerometer = bytes(outputWords(at: instant))
        switch spec.layout {
        case .outputRegisters:
            push(accelerometer, spec)
        case .tagged(let gyroscopeTag, let accelerometerTag, _):
            func tag(_ sensor: UInt8) -> UInt8 {
                let tag = sensor << 3 | UInt8(index & 3) << 1
                return tag | UInt8(tag.nonzeroBitCount & 1)
            }
            push([tag(gyroscopeTag)] + bytes(gyroscopeWords(at: instant, profile.gyroscope!)), spec)
            push([tag(accelerometerTag)] + accelerometer, spec)
        case .pattern:
            let words = bytes(gyroscopeWords(at: instant, profile.gyroscope!)) + accelerometer
            for word in stride(from: 0, to: words.count, by: 2) { push(Array(words[word...word + 1]), spec) }
        }
    }

    /// A full FIFO in stream mode overwrites its oldest entry: a sample is
    /// lost with its only entry, its accelerometer's word, or its
    /// pattern's first word.
    private func push(_ entry: [UInt8], _ spec: ChipProfile.FIFO) {
        if fifo.count == spec.depth {
            let oldest = popOldest(spec)
            switch spec.layout {
            case .outputRegisters: counters.samplesLost += 1
            case .tagged(_, let accelerometerTag, _): counters.samplesLost += oldest.entry[0] >> 3 == accelerometerTag ? 1 : 0
            case .pattern: counters.samplesLost += oldest.position == 0 ? 1 : 0
            }
            fifoOverrunLatched = true
        }
        fifo.append(entry)
    }

    /// Removes the oldest entry, with its place in the pattern.
    private func popOldest(_ spec: ChipProfile.FIFO) -> (entry: [UInt8], position: Int) {
        let position = fifoHeadPosition
        fifoHeadPosition = (position + 1) % spec.entriesPerSample
        return (fifo.removeFirst(), position)
    }

    private func bytes(_ words: (UInt16, UInt16, UInt16)) -> [UInt8] {
        [words.0, words.1, words.2].flatMap { [UInt8($0 & 0xFF), UInt8($0 >> 8)] }
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
        guard let oldest = fifo.first else { return 0 }
        let index = Int(register - spec.dataRegister)
        if index == spec.entryBytes - 1 { _ = popOldest(spec) }
        return oldest[index]
    }
}
