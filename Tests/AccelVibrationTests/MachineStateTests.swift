// SPDX-License-Identifier: Apache-2.0
import AccelCore
import Foundation
import Testing
@testable import AccelVibration

@Suite("Machine state")
struct MachineStateTests {
    /// Feeds one RMS per window (a window a second) and returns the transitions.
    func run(_ levels: [Double], settings: MachineStateSettings = MachineStateSettings(idle: 0.015, running: 0.05)) -> [MachineTransition] {
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

    @Test("motor runs through the analyzer: each start and end dated within a quarter second of the truth, a 1.75 s lull between two runs seen",
          arguments: [0.0, 0.13, 0.37])
    func datedRuns(offset: Double) throws {
        let rate = 1_600.0
        let runs = [(3.3 + offset)..<(8.1 + offset), (9.85 + offset)..<(13.0 + offset)]
        var noise = SeededRandom(seed: 3)
        let analyzer = try VibrationAnalyzer(settings: VibrationSettings(), rate: rate)
        var transitions: [MachineTransition] = []
        for i in 0..<Int(16 * rate) {
            let t = Double(i) / rate
            let running = runs.contains { $0.contains(t) }
            // A cheap part at rest: 27 mg of vector RMS; running, 0.2 g at 50 Hz on x.
            var g = Vector3(0.0156 * noise.gaussian(), 0.0156 * noise.gaussian(), 1 + 0.0156 * noise.gaussian())
            if running { g = g + Vector3(0.2 * sin(2 * .pi * 50 * t), 0, 0) }
            if let report = analyzer.append(g, at: t) { transitions += report.transitions }
        }
        #expect(transitions.map(\.to) == [.running, .off, .running, .off], "\(transitions)")
        let truth = runs.flatMap { [$0.lowerBound, $0.upperBound] }
        for (transition, time) in zip(transitions, truth) {
            #expect(abs(transition.time - time) <= 0.25, "\(transition.to) at \(transition.time) s, truth \(time) s")
        }
    }
}
