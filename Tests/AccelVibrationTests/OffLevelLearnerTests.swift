// SPDX-License-Identifier: Apache-2.0
import AccelCore
import Foundation
import Testing
@testable import AccelVibration

@Suite("Learning the machine's off level")
struct OffLevelLearnerTests {
    /// A part at rest (`noise` g per axis) for `seconds`, then whatever
    /// `extra` adds, through a learner; its first verdict other than learning.
    func learn(noise: Double, seconds: Double = 60, rate: Double = 1_600, settings: MachineStateSettings = MachineStateSettings(),
               extra: (Double) -> Vector3 = { _ in .zero }) throws -> OffLevelLearner.Progress {
        var learner = try OffLevelLearner(settings: settings, rate: rate, seconds: seconds)
        var random = SeededRandom(seed: 11)
        for i in 0..<Int((seconds + 1) * rate) {
            let t = Double(i) / rate
            let g = Vector3(noise * random.gaussian(), noise * random.gaussian(), 1 + noise * random.gaussian()) + extra(t)
            let progress = learner.append(g, at: t)
            if progress != .learning { return progress }
        }
        return .learning
    }

    @Test("a cheap part at rest (27 mg of vector RMS): the off level is its noise, idle sits far enough above that the rest reads off, running moves to twice idle")
    func cheapPart() throws {
        guard case .learned(let level) = try learn(noise: 0.0156) else { Issue.record("nothing learned"); return }
        let noise = 0.0156 * 3.0.squareRoot()
        #expect(level.offLevel > noise && level.offLevel < noise * 1.15, "off level \(level.offLevel) g for \(noise) g of noise")
        #expect(level.blocks == 240)
        #expect(abs(level.settings.idle - level.offLevel * 1.5 / 0.7) < 1e-12)
        #expect(level.settings.running == 2 * level.settings.idle, "0.1 g is not above twice the new idle")
        // Ten minutes of the same part at rest on the learned thresholds: off throughout.
        var tracker = MachineStateTracker(settings: level.settings, hold: 6)
        var random = SeededRandom(seed: 12)
        var blocks = BlockRMS(size: 400)
        var changes: [MachineTransition] = []
        for i in 0..<(600 * 1_600) {
            let g = Vector3(0.0156 * random.gaussian(), 0.0156 * random.gaussian(), 1 + 0.0156 * random.gaussian())
            if let block = blocks.append(g, at: Double(i) / 1_600), let change = tracker.update(rms: block.rms, time: block.start) { changes.append(change) }
        }
        #expect(changes.isEmpty, "\(changes)")
    }

    @Test("motor runs on a cheap part, on thresholds learned from its first 3 s at rest: each start and end within a quarter second, the lull between two runs seen")
    func runsOnLearnedThresholds() throws {
        let rate = 1_600.0
        let runs = [3.3..<8.1, 9.85..<13.0]
        var random = SeededRandom(seed: 3)
        func sample(_ t: Double) -> Vector3 {
            let g = Vector3(0.0156 * random.gaussian(), 0.0156 * random.gaussian(), 1 + 0.0156 * random.gaussian())
            return runs.contains { $0.contains(t) } ? g + Vector3(0.2 * sin(2 * .pi * 50 * t), 0, 0) : g
        }
        var learner = try OffLevelLearner(settings: MachineStateSettings(), rate: rate, seconds: 3)
        var learned: LearnedLevel?
        for i in 0..<Int(3.2 * rate) where learned == nil {
            if case .learned(let level) = learner.append(sample(Double(i) / rate), at: Double(i) / rate) { learned = level }
        }
        var settings = VibrationSettings()
        settings.state = try #require(learned).settings
        let analyzer = try VibrationAnalyzer(settings: settings, rate: rate)
        var transitions: [MachineTransition] = []
        for i in 0..<Int(16 * rate) {
            if let report = analyzer.append(sample(Double(i) / rate), at: Double(i) / rate) { transitions += report.transitions }
        }
        #expect(transitions.map(\.to) == [.running, .off, .running, .off], "\(transitions)")
        for (transition, time) in zip(transitions, runs.flatMap { [$0.lowerBound, $0.upperBound] }) {
            #expect(abs(transition.time - time) <= 0.25, "\(transition.to) at \(transition.time) s, truth \(time) s")
        }
    }

    @Test("a quiet part (LSM6DSO, 3 mg): idle comes down to a few mg, running stays at its 0.1 g")
    func quietPart() throws {
        guard case .learned(let level) = try learn(noise: 0.0018, rate: 3_330) else { Issue.record("nothing learned"); return }
        #expect(level.settings.idle < 0.01 && level.settings.idle > 0.004, "idle \(level.settings.idle) g")
        #expect(level.settings.running == 0.1)
    }

    @Test("the machine runs while learning: said, with the level and when, and nothing learned")
    func runs() throws {
        let progress = try learn(noise: 0.0018) { t in t > 20 ? Vector3(0.2 * sin(2 * .pi * 50 * t), 0, 0) : .zero }
        guard case .ran(let rms, let time) = progress else { Issue.record("\(progress)"); return }
        #expect(rms > 0.1 && abs(time - 20) <= 0.25, "\(rms) g at \(time) s")
    }

    @Test("a span shorter than 2 s is refused, saying what is enough")
    func tooShort() {
        #expect(throws: LearnError.tooShort(seconds: 1)) { try OffLevelLearner(settings: MachineStateSettings(), rate: 1_600, seconds: 1) }
        #expect(LearnError.tooShort(seconds: 1).description.contains("a minute"))
    }
}
