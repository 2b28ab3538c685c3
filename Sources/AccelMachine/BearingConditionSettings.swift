// SPDX-License-Identifier: Apache-2.0

/// A bearing order's condition, judged from its family's height over the
/// envelope spectrum's floor (docs/VIBRATION.md, "Defect indicator").
public enum BearingCondition: String, Sendable, CaseIterable, Comparable {
    case ok, watch, alarm

    public static func < (a: Self, b: Self) -> Bool { a.rank < b.rank }
    private var rank: Int { Self.allCases.firstIndex(of: self)! }
}

/// Where an order's indicator (dB over the floor) becomes `watch` and
/// `alarm`, how far below a threshold it must fall to leave it, and how
/// many averaged reports a new condition must hold.
public struct BearingConditionSettings: Sendable, Equatable {
    public var watch: Double
    public var alarm: Double
    public var hysteresis: Double
    public var hold: Int

    /// From the development recordings (docs/VIBRATION.md): on MFPT's eight
    /// records, in the kurtogram's band, the defect's own family stands
    /// 19.9 to 25.3 dB over the floor; the orders the bearing does not have
    /// reach at most 11.5 dB, in the inner-race records, whose envelope is
    /// a dense comb of the shaft's lines. Both thresholds sit between.
    public init(watch: Double = 14, alarm: Double = 18, hysteresis: Double = 3, hold: Int = 3) {
        self.watch = watch
        self.alarm = alarm
        self.hysteresis = hysteresis
        self.hold = hold
    }
}
