// SPDX-License-Identifier: Apache-2.0
import Testing
@testable import AccelVibration

@Suite("Machine state")
struct MachineStateTests {
    /// Feeds one RMS per window (a window a second) and returns the transitions.
    func run(_ levels: [Double], settings: MachineStateSettings = MachineStateSettings()) -> [MachineTransition] {
        var tracker = MachineStateTracker(settings: settings)
        return levels.enumerated().compactMap { tracker.update(rms: $1, time: Double($0)) }
    }

    @Test("a washing machine: off, running for a while, off; each change once, dated at its first window")
    func cycle() {
        let transitions = run([0.002, 0.002, 0.2, 0.25, 0.2, 0.3, 0.2, 0.003, 0.003, 0.002, 0.002])
        #expect(transitions == [
            MachineTransition(from: .off, to: .running, time: 2),
            MachineTransition(from: .running, to: .off, time: 7),
        ])
    }

    @Test("hovering on a threshold does not flap: leaving needs the hysteresis's margin")
    func hysteresis() {
        let transitions = run([0.06, 0.06, 0.06, 0.045, 0.055, 0.045, 0.045, 0.045, 0.03, 0.03, 0.03])
        #expect(transitions.map(\.to) == [.running, .idle])
        #expect(transitions.last?.time == 8)
    }

    @Test("a knock (one loud window) is not a start")
    func knock() {
        #expect(run([0.001, 0.5, 0.001, 0.001, 0.5, 0.5, 0.001]).isEmpty)
    }

    @Test("idle between the thresholds")
    func idle() {
        #expect(run([0.02, 0.02, 0.02]).map(\.to) == [.idle])
    }
}
