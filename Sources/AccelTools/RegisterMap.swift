// SPDX-License-Identifier: Apache-2.0
import AccelCore
import AccelDriver
import AccelParts

/// `accelctl dump`'s view of a part: every register its profile defines,
/// with the raw value, the named fields and what the settings mean.
public enum RegisterMap {
    /// One line per register, in address order. `values` holds what was
    /// read; a register missing from it (its read has a side effect) is
    /// listed but not read.
    public static func lines(_ profile: ChipProfile, values: [UInt8: UInt8]) -> [String] {
        let meaning = settings(profile, values: values)
        return profile.registers.sorted { $0.address < $1.address }.map { register in
            let name = register.name + String(repeating: " ", count: max(18 - register.name.count, 0))
            guard let value = values[register.address] else {
                return "\(hex(register.address))  \(name)  --    not read: reading it clears a latch or resets a filter"
            }
            var parts = register.fields.map { field in "\(field.name)=\(ChipProfile.Field(register.address, mask: field.mask).value(in: value))" }
            if register.address == profile.whoAmIRegister {
                let named = ChipProfile.candidates(whoAmI: value).map(\.name)
                parts.append(named.isEmpty ? (ChipProfile.relatives[value] ?? "not a known part") : named.joined(separator: " or "))
            }
            if let note = meaning[register.address] { parts.append("· " + note) }
            return "\(hex(register.address))  \(name)  \(hex(value))  \(parts.joined(separator: " "))"
        }
    }

    /// Registers worth reading: all but those whose read changes the chip.
    public static func readable(_ profile: ChipProfile) -> [UInt8] {
        profile.registers.filter { $0.access != .readClears }.map(\.address)
    }

    /// What the range, rate, power and mode fields say, by register.
    static func settings(_ profile: ChipProfile, values: [UInt8: UInt8]) -> [UInt8: String] {
        func field(_ f: ChipProfile.Field) -> UInt8? { values[f.register].map(f.value) }
        var notes: [UInt8: [String]] = [:]
        let mode = profile.modes.first { $0.settings.allSatisfy { field($0.field) == $0.value } } ?? profile.modes[0]
        if let code = field(profile.powerField), code == 0 {
            notes[profile.powerField.register, default: []].append("powered down")
        } else if let code = field(profile.rateField) {
            let rate = mode.rates.first { $0.code == code }.map { "\($0.hertz) Hz" } ?? "reserved rate code \(code)"
            notes[profile.rateField.register, default: []].append(rate + (profile.modes.count > 1 ? ", \(mode.name) mode (\(mode.resolutionBits)-bit)" : ""))
        }
        if let code = field(profile.rangeField) {
            notes[profile.rangeField.register, default: []].append(profile.ranges.first { $0.code == code }.map { "±\($0.fullScale) g" } ?? "reserved range code \(code)")
        }
        if let test = profile.selfTest, let code = field(test.field), code != 0 {
            notes[test.field.register, default: []].append("self-test actuator on")
        }
        for register in profile.registers {
            if let fds = register.fields.first(where: { $0.name == "FDS" }), let value = values[register.address], value & fds.mask != 0 {
                notes[register.address, default: []].append("outputs high-passed: they read about 0 g at rest")
            }
        }
        // Each axis's value, on its high byte: left-justified, so the high
        // and low bytes together shift down by 16 - resolution.
        let fullScale = field(profile.rangeField).flatMap { code in profile.ranges.first { $0.code == code } }?.fullScale ?? profile.ranges[0].fullScale
        if let sensitivity = profile.sensitivity(fullScale: fullScale, mode: mode) {
            for (index, axis) in ["X", "Y", "Z"].enumerated() {
                let high = profile.statusRegister + UInt8(profile.accelerometerOffset + 1 + 2 * index)
                guard let h = values[high] else { continue }
                let word = Int16(bitPattern: UInt16(h) << 8 | UInt16(values[high - 1] ?? 0))
                let digits = Int(word) >> (16 - mode.resolutionBits)
                notes[high, default: []].append("\(axis) = \(digits) digits = \(fixed(Double(digits) * sensitivity, 3)) g at ±\(fullScale) g")
            }
        }
        // The gyroscope's, on a six-axis part: 16-bit, at its range.
        if let gyroscope = profile.gyroscope, let code = field(gyroscope.rangeField),
           let range = gyroscope.ranges.first(where: { $0.code == code }) {
            for (index, axis) in ["X", "Y", "Z"].enumerated() {
                let high = profile.statusRegister + UInt8(gyroscope.dataOffset + 1 + 2 * index)
                guard let h = values[high] else { continue }
                let digits = Int(Int16(bitPattern: UInt16(h) << 8 | UInt16(values[high - 1] ?? 0)))
                notes[high, default: []].append("\(axis) = \(digits) digits = \(fixed(Double(digits) * range.dpsPerDigit, 2)) dps at ±\(range.dps) dps")
            }
        }
        return notes.mapValues { $0.joined(separator: ", ") }
    }
}
