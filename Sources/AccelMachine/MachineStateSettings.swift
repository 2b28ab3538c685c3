// SPDX-License-Identifier: Apache-2.0

/// Whether the machine runs, judged from its vibration's RMS, so that "the
/// washing machine is done" is a transition, not a threshold each client
/// writes again.
public enum MachineState: String, Sendable, CaseIterable {
    case off, idle, running
}

/// The thresholds between the states (vector RMS, g) and how long a new
/// state must hold before it is believed.
public struct MachineStateSettings: Sendable, Equatable {
    /// Above this the machine is at least idle (a pump on standby, a
    /// printer's fans).
    public var idle: Double
    /// Above this it runs.
    public var running: Double
    /// A state is left only when the RMS falls this far below its threshold
    /// (a fraction): a machine that hovers on a threshold does not flap.
    public var hysteresis: Double
    /// Half-seconds (hops of the default windows) a new state must hold.
    public var hold: Int

    /// Defaults above a cheap MEMS part's noise at rest (a three-axis part
    /// at 1,600 Hz: 26 to 28 mg of vector RMS; LSM6DSO at 3,330 Hz: about
    /// 3 mg) and below a running washing machine, pump or motor (100 mg and
    /// up). A quiet fan may read idle: set them per machine from what
    /// `accelctl vibration` shows.
    public init(idle: Double = 0.05, running: Double = 0.1, hysteresis: Double = 0.3, hold: Int = 3) {
        self.idle = idle
        self.running = running
        self.hysteresis = hysteresis
        self.hold = hold
    }

    /// `[vibration] idle-threshold = learn`: the idle threshold is learned
    /// from the machine at rest when acceld starts (these values until then).
    public var learnAtStart = false

    /// How far above the off level (the quietest blocks' 95th percentile)
    /// the machine must be to leave off, and so, with the hysteresis, how
    /// far below idle's exit the machine at rest stays.
    public static let learnedMargin = 1.5

    /// These settings with the idle threshold learned from `offLevel` (g):
    /// the machine at rest stays `learnedMargin` below idle's exit; running
    /// stays where it was unless that is not above twice the new idle.
    public func learned(offLevel: Double) -> MachineStateSettings {
        var settings = self
        settings.idle = offLevel * Self.learnedMargin / (1 - hysteresis)
        settings.running = max(running, 2 * settings.idle)
        settings.learnAtStart = false
        return settings
    }
}
