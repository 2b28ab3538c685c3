// SPDX-License-Identifier: Apache-2.0

/// One order's condition from its indicator, report by report: a threshold
/// is crossed upwards at its value and downwards at its value less the
/// hysteresis, and a new condition holds for `hold` reports before it is
/// believed, so that one loud window neither raises nor clears an alarm.
public struct BearingConditionTracker: Sendable {
    public let settings: BearingConditionSettings
    private var held: HeldState<BearingCondition>
    public var condition: BearingCondition { held.state }

    public init(settings: BearingConditionSettings) {
        self.settings = settings
        held = HeldState(.ok, hold: settings.hold)
    }

    func indicated(by indicator: Double) -> BearingCondition {
        func above(_ threshold: Double, holding: Bool) -> Bool { indicator >= threshold - (holding ? settings.hysteresis : 0) }
        if above(settings.alarm, holding: condition == .alarm) { return .alarm }
        if above(settings.watch, holding: condition >= .watch) { return .watch }
        return .ok
    }

    /// Feeds one report's indicator (dB); the condition after it.
    public mutating func update(indicator: Double) -> BearingCondition {
        _ = held.update(indicated(by: indicator))
        return condition
    }
}
