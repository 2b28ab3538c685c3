// SPDX-License-Identifier: Apache-2.0
import AccelParts

extension Accelerometer {
    /// The settings that arm the wake-up unit as `wake` says, at `range`.
    func wakeUpSettings(_ wake: DeviceConfiguration.WakeUpArming, range: Int) throws -> [ChipProfile.Setting] {
        guard let unit = profile.wakeUp else { throw DriverError.noWakeUpUnit(part: profile.name) }
        let largest = unit.duration.mask >> UInt8(unit.duration.mask.trailingZeroBitCount)
        return unit.settings + [
            ChipProfile.Setting(unit.threshold, unit.steps(for: wake.threshold, range: range, in: profile)),
            ChipProfile.Setting(unit.duration, UInt8(min(max(wake.duration, 0), Int(largest)))),
        ]
    }

    /// Starts the high-pass filter from the present reading and releases a
    /// latched wake-up: called after arming, so that the board's attitude
    /// and what came before do not count as motion.
    public func resetWakeUp() throws {
        guard let unit = profile.wakeUp else { return }
        if let reset = unit.filterReset { _ = try bus.readRegister(reset) }
        _ = try bus.readRegister(unit.source)
    }

    /// Whether the wake-up unit fired since it was last asked (reading the
    /// source releases the latch).
    public func wakeUpFired() throws -> Bool {
        guard let unit = profile.wakeUp else { return false }
        return try bus.readRegister(unit.source) & unit.fired != 0
    }
}
