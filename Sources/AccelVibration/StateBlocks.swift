// SPDX-License-Identifier: Apache-2.0
import AccelCore

/// The machine's state judged on short blocks of samples, not on the
/// analysis windows: a window a second long shows a start for the first
/// time about half a window before the motor starts (the window begins
/// earlier), and a lull shorter than a window and its hold never shows at
/// all. Each block's vector RMS (its own mean removed) feeds the tracker,
/// so a change is dated at the block where the level crossed, within a
/// block, and every analyzer agrees on the state whatever its windows.
struct StateBlocks {
    /// A block's length, s.
    static let duration = 0.25
    /// Hops of the default windows (half a second) that `state-hold`
    /// counts: the hold is the same time as before, in blocks.
    static let holdUnit = 0.5

    private var blocks: BlockRMS
    private(set) var tracker: MachineStateTracker
    /// Changes not yet carried by a report.
    private(set) var transitions: [MachineTransition] = []

    init(settings: MachineStateSettings, rate: Double) {
        blocks = BlockRMS(size: Int((Self.duration * rate).rounded()))
        let hold = Int((Double(max(1, settings.hold)) * Self.holdUnit / Self.duration).rounded())
        tracker = MachineStateTracker(settings: settings, hold: hold)
    }

    mutating func append(_ g: Vector3, at time: Double) {
        guard let block = blocks.append(g, at: time) else { return }
        if let transition = tracker.update(rms: block.rms, time: block.start) { transitions.append(transition) }
    }

    /// The changes since the last call.
    mutating func takeTransitions() -> [MachineTransition] {
        defer { transitions.removeAll() }
        return transitions
    }

    /// Starts the block again (after a gap); the state stays.
    mutating func reset() { blocks.reset() }
}
