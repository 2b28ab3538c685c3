// SPDX-License-Identifier: Apache-2.0
import AccelCore
import AccelParts

// The chip model's wake-up unit (ChipProfile+WakeUp.swift), as acceld
// arms it: each sample's specific force, gravity taken out by the unit's
// filter, against the threshold on every axis (OR); fired once that held
// for DURATION + 1 samples; latched until the source register is read.
// The high-pass filter is first order with the part's cut-off (ODR / 48,
// the LIS parts' first coefficient; ODR / 100 on the six-axis parts); its
// reference is set by reading the filter's reset register, or, where the
// part has none, it runs on every sample while selected. (The slope
// filter is modelled too, though no part in the table uses it now.)
// Not modelled: the units' other uses (AND,
// low events, free fall), 6D, the LSM6DS's sleep / inactivity.
extension ChipModel {
    struct WakeUnit {
        /// The high-pass filter's reference, g; nil before its first sample.
        var reference: Vector3?
        /// The last sample, for the slope filter.
        var previous: Vector3?
        /// Samples in a row over the threshold.
        var count = 0
        /// The source register: fired and the axes.
        var source: UInt8 = 0
    }

    private var wakeUpArmed: Bool {
        profile.wakeUp?.settings.allSatisfy { field($0.field) == $0.value } ?? false
    }

    var wakeUpRaised: Bool {
        guard let unit = profile.wakeUp else { return false }
        return wakeUnit.source & unit.fired != 0
    }

    /// The unit's settings for the samples of one transaction, read from
    /// its registers once.
    struct WakeUpPass {
        let unit: ChipProfile.WakeUp
        let armed: Bool
        let alpha: Double
        let threshold: Double
        let duration: Int
        let latched: Bool
    }

    /// Nil when the unit neither watches nor filters (its filter, where
    /// the part has no reset register, runs while selected).
    func wakeUpPass() -> WakeUpPass? {
        guard let unit = profile.wakeUp else { return nil }
        let armed = wakeUpArmed
        let runsAllAlong = unit.filterReset == nil && !unit.filterSettings.isEmpty
            && unit.filterSettings.allSatisfy { field($0.field) == $0.value }
        guard armed || runsAllAlong else { return nil }
        let rangeCode = field(profile.rangeField)
        let rangeIndex = profile.ranges.firstIndex { $0.code == rangeCode } ?? 0
        return WakeUpPass(unit: unit, armed: armed, alpha: 1 / (unit.highPassDivisor / (2 * Double.pi) + 1),
                          threshold: Double(field(unit.threshold)) * unit.gPerStep[rangeIndex],
                          duration: Int(field(unit.duration)), latched: field(unit.latch.field) == unit.latch.value)
    }

    /// One sample's specific force `felt` (g) through the unit.
    func runWakeUp(_ felt: Vector3, _ pass: WakeUpPass) {
        let g = felt + imperfections.offset
        let filtered: Vector3
        switch pass.unit.filter {
        case .highPass:
            let reference = wakeUnit.reference ?? g
            filtered = g - reference
            wakeUnit.reference = reference + filtered * pass.alpha
        case .slope:
            filtered = (g - (wakeUnit.previous ?? g)) * 0.5
            wakeUnit.previous = g
        }
        guard pass.armed else { return }
        let over = [filtered.x, filtered.y, filtered.z].map { abs($0) > pass.threshold }
        let axes = zip(over, pass.unit.axisBits).reduce(UInt8(0)) { $0 | ($1.0 ? $1.1 : 0) }
        wakeUnit.count = axes != 0 ? wakeUnit.count + 1 : 0
        if axes != 0 && wakeUnit.count > pass.duration {
            wakeUnit.source = pass.unit.fired | axes
        } else if !pass.latched {
            wakeUnit.source = 0
        }
    }

    /// The unit's source register (a latched wake-up released) and the
    /// filter's reset register (the reference set to the present force);
    /// nil for every other register.
    func readWakeUpRegister(_ register: UInt8) -> UInt8? {
        guard wakeUpRegisters.contains(register), let unit = profile.wakeUp else { return nil }
        if register == unit.source {
            let source = wakeUnit.source
            if field(unit.latch.field) == unit.latch.value { wakeUnit.source = 0 }
            return source
        }
        if register == unit.filterReset {
            wakeUnit.reference = motion.specificForce(at: motionTime(time.nanoseconds)) + imperfections.offset
            wakeUnit.previous = nil
            return 0
        }
        return nil
    }
}
