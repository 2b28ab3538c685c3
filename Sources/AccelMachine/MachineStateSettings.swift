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
}
