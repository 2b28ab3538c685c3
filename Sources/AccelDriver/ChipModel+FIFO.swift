// SPDX-License-Identifier: Apache-2.0
import AccelCore

// The chip model's FIFO in stream mode: what it queues per sample, and
// the tagged FIFO's registers (the LSM6DSO's FIFO_STATUS1/2 and
// FIFO_DATA_OUT_TAG..Z_H). The output-register FIFO's reads are in
// ChipModel.swift, beside the output registers they share.
extension ChipModel {
    /// Queues sample `index`, made at `instant`: its six output bytes, or
    /// its gyroscope's word and then its accelerometer's, each tagged with
    /// TAG_SENSOR, TAG_CNT (the sample's number modulo 4) and TAG_PARITY.
    func queue(sample index: UInt64, at instant: UInt64, _ spec: ChipProfile.FIFO) {
        switch spec.layout {
        case .outputRegisters:
            push(bytes(outputWords(at: instant)), spec)
        case .tagged(let gyroscopeTag, let accelerometerTag, _):
            func tag(_ sensor: UInt8) -> UInt8 {
                let tag = sensor << 3 | UInt8(index & 3) << 1
                return tag | UInt8(tag.nonzeroBitCount & 1)
            }
            push([tag(gyroscopeTag)] + bytes(gyroscopeWords(at: instant, profile.gyroscope!)), spec)
            push([tag(accelerometerTag)] + bytes(outputWords(at: instant)), spec)
        }
    }

    /// A full FIFO in stream mode overwrites its oldest entry: a sample
    /// lost when that was its only entry or its accelerometer's word.
    private func push(_ entry: [UInt8], _ spec: ChipProfile.FIFO) {
        if fifo.count == spec.depth {
            let oldest = fifo.removeFirst()
            if case .tagged(_, let accelerometerTag, _) = spec.layout, oldest[0] >> 3 != accelerometerTag {} else {
                counters.samplesLost += 1
            }
            fifoOverrunLatched = true
        }
        fifo.append(entry)
    }

    private func bytes(_ words: (UInt16, UInt16, UInt16)) -> [UInt8] {
        [words.0, words.1, words.2].flatMap { [UInt8($0 & 0xFF), UInt8($0 >> 8)] }
    }

    /// A tagged FIFO's register, or nil for any other. The status: the
    /// level in words, the watermark flag at or above the watermark, the
    /// overrun flags while an overwrite is latched (reading the second
    /// byte clears it, as FIFO_OVR_LATCHED). The data: the oldest word's
    /// bytes; reading its last byte pops it.
    func readTaggedFIFO(_ register: UInt8, _ spec: ChipProfile.FIFO) -> UInt8? {
        if register == spec.statusRegister || register == spec.statusRegister + 1 {
            let level = fifo.count, watermark = Int(field(spec.watermarkField))
            var value = UInt16(level) & spec.levelMask
            if watermark > 0 && level >= watermark { value |= spec.watermarkFlag }
            if fifoOverrunLatched { value |= spec.overrunFlag }
            guard register == spec.statusRegister else {
                fifoOverrunLatched = false
                return UInt8(value >> 8)
            }
            return UInt8(value & 0xFF)
        }
        guard register >= spec.dataRegister && register < spec.dataRegister + UInt8(spec.entryBytes) else { return nil }
        guard let oldest = fifo.first else { return 0 }
        let index = Int(register - spec.dataRegister)
        if index == spec.entryBytes - 1 { fifo.removeFirst() }
        return oldest[index]
    }
}
