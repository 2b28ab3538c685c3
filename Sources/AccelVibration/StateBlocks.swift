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

    let size: Int
    private(set) var tracker: MachineStateTracker
    private var count = 0
    private var start = 0.0
    private var sums = Vector3.zero, squares = Vector3.zero
    /// Changes not yet carried by a report.
    private(set) var transitions: [MachineTransition] = []

    init(settings: MachineStateSettings, rate: Double) {
        size = max(1, Int((Self.duration * rate).rounded()))
        let blocks = Int((Double(max(1, settings.hold)) * Self.holdUnit / Self.duration).rounded())
        tracker = MachineStateTracker(settings: settings, hold: blocks)
    }

    mutating func append(_ g: Vector3, at time: Double) {
        if count == 0 { start = time }
        sums = sums + g
        squares = squares + Vector3(g.x * g.x, g.y * g.y, g.z * g.z)
        count += 1
        guard count == size else { return }
        let n = Double(count)
        let variance = (squares.x + squares.y + squares.z) / n
            - (sums.x * sums.x + sums.y * sums.y + sums.z * sums.z) / (n * n)
        if let transition = tracker.update(rms: max(0, variance).squareRoot(), time: start) { transitions.append(transition) }
        reset()
    }

    /// The changes since the last call.
    mutating func takeTransitions() -> [MachineTransition] {
        defer { transitions.removeAll() }
        return transitions
    }

    /// Starts the block again (after a gap); the state stays.
    mutating func reset() {
        count = 0
        sums = .zero
        squares = .zero
    }
}
