// SPDX-License-Identifier: Apache-2.0

/// A state that changes only when a new one holds for `hold` updates in a
/// row, dated at the first of them: one loud window neither starts a
/// machine nor raises an alarm. The machine's state and each bearing
/// order's condition are judged so; each says which state a reading points
/// to (with its own hysteresis), this decides when it is believed.
struct HeldState<State: Equatable & Sendable>: Sendable {
    let hold: Int
    private(set) var state: State
    private var candidate: State
    private var since = 0.0
    private var count = 0

    init(_ initial: State, hold: Int) {
        self.hold = max(1, hold)
        state = initial
        candidate = initial
    }

    /// The state the update at `time` points to; the change it completes,
    /// with when its run began.
    mutating func update(_ next: State, at time: Double = 0) -> (from: State, since: Double)? {
        guard next != state else {
            count = 0
            return nil
        }
        if next != candidate || count == 0 {
            candidate = next
            since = time
            count = 0
        }
        count += 1
        guard count >= hold else { return nil }
        let from = state
        state = candidate
        count = 0
        return (from, since)
    }
}
