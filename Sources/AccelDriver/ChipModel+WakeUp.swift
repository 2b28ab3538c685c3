// SPDX-License-Identifier: Apache-2.0
import AccelCore

// The chip model's wake-up unit (ChipProfile+WakeUp.swift), as acceld
// arms it: each sample's specific force, gravity taken out by the unit's
// filter, against the threshold on every axis (OR); fired once that held
// for DURATION + 1 samples; latched until the source register is read.
// The high-pass filter is first order with the cut-off of the parts'
// first coefficient (ODR / 48); its reference is set by reading the
// filter's reset register. Not modelled: the units' other uses (AND,
// low events, free fall), 6D, the LSM6DS's sleep / inactivity.
extension ChipModel {
    struct WakeUnit {
        /// The high-pass filter's reference, g.
        var reference = Vector3.zero
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

    /// Samples `first...last` (the last 256 at most) through the unit.
    func runWakeUp(from first: UInt64, through last: UInt64, start: UInt64, period: UInt64) {
        guard let unit = profile.wakeUp, wakeUpArmed, last >= first else { return }
        let rangeCode = field(profile.rangeField)
        let rangeIndex = profile.ranges.firstIndex { $0.code == rangeCode } ?? 0
        let threshold = Double(field(unit.threshold)) * unit.gPerStep[rangeIndex]
        let duration = Int(field(unit.duration))
        let latched = field(unit.latch.field) == unit.latch.value
        // The LSM6DS's WAKE_UP_SRC has X_WU, Y_WU, Z_WU in bits 2..0; the
        // family's sources XH, YH, ZH in bits 1, 3, 5.
        let axisBits: [UInt8] = unit.filter == .slope ? [0x04, 0x02, 0x01] : [0x02, 0x08, 0x20]
        for k in max(first, last >= 255 ? last - 255 : 0)...last {
            let g = motion.specificForce(at: motionTime(start + k * period)) + imperfections.offset
            let filtered: Vector3
            switch unit.filter {
            case .highPass:
                filtered = g - wakeUnit.reference
                wakeUnit.reference = wakeUnit.reference + filtered * Self.highPassAlpha
            case .slope:
                filtered = (g - (wakeUnit.previous ?? g)) * 0.5
                wakeUnit.previous = g
            }
            let over = [filtered.x, filtered.y, filtered.z].map { abs($0) > threshold }
            let axes = zip(over, axisBits).reduce(UInt8(0)) { $0 | ($1.0 ? $1.1 : 0) }
            wakeUnit.count = axes != 0 ? wakeUnit.count + 1 : 0
            if axes != 0 && wakeUnit.count > duration {
                wakeUnit.source = unit.fired | axes
            } else if !latched {
                wakeUnit.source = 0
            }
        }
    }

    /// A first-order high-pass at ODR / 48: the reference follows the
    /// input by this much a sample (as the FDS output filter does).
    private static let highPassAlpha = 1 / (6 * 8 / (2 * Double.pi) + 1)

    /// The unit's source register (a latched wake-up released) and the
    /// filter's reset register (the reference set to the present force);
    /// nil for every other register.
    func readWakeUpRegister(_ register: UInt8) -> UInt8? {
        guard let unit = profile.wakeUp else { return nil }
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
