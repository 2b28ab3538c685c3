// SPDX-License-Identifier: Apache-2.0

/// A change of state, at the start of the window that confirmed it.
public struct MachineTransition: Sendable, Equatable {
    public var from: MachineState
    public var to: MachineState
    public var time: Double
}

/// The state machine: fed one window's RMS at a time.
public struct MachineStateTracker: Sendable {
    public let settings: MachineStateSettings
    private var held: HeldState<MachineState>
    /// Updates a new state must hold (the settings' `hold` unless given).
    public var hold: Int { held.hold }
    public var state: MachineState { held.state }

    public init(settings: MachineStateSettings = MachineStateSettings(), hold: Int? = nil) {
        self.settings = settings
        held = HeldState(.off, hold: hold ?? settings.hold)
    }

    /// The state a window of `rms` points to, from the current one: a
    /// threshold is crossed upwards at its value, downwards at its value
    /// less the hysteresis.
    func indicated(by rms: Double) -> MachineState {
        let down = 1 - settings.hysteresis
        func above(_ threshold: Double, holding: Bool) -> Bool { rms >= (holding ? threshold * down : threshold) }
        if above(settings.running, holding: state == .running) { return .running }
        if above(settings.idle, holding: state != .off) { return .idle }
        return .off
    }

    /// Feeds the window starting at `time`; the transition it completes.
    public mutating func update(rms: Double, time: Double) -> MachineTransition? {
        held.update(indicated(by: rms), at: time).map { MachineTransition(from: $0.from, to: state, time: $0.since) }
    }
}
