// SPDX-License-Identifier: Apache-2.0
@testable import AccelDaemon
import AccelCore
import Testing

@Suite("Edge clock")
struct EdgeClockTests {
    /// Edges of a chip whose clock runs `error` off nominal, each stamped up to `jitter` ns late.
    func edges(rate: Int, error: Double, count: Int, jitter: UInt64 = 0, every: Int = 1) -> [UInt64] {
        let period = 1e9 / (Double(rate) * (1 + error))
        var random = SystemRandomNumberGenerator()
        return stride(from: 0, to: count, by: every).map { UInt64(1e9 + Double($0) * period) + (jitter == 0 ? 0 : UInt64.random(in: 0...jitter, using: &random)) }
    }

    @Test("the period is measured from the edges: a chip 8 % fast at 400 Hz, stamps jittered by 20 µs")
    func measuresPeriod() {
        var clock = EdgeClock(rate: 400)
        for edge in edges(rate: 400, error: 0.08, count: 400, jitter: 20_000) { clock.edge(at: edge) }
        let truth = 1e9 / (400 * 1.08)
        #expect(abs(clock.period - truth) < 0.002 * truth, "\(clock.period) against \(truth)")
    }

    @Test("edges a few periods apart (late reads leave a latched pin high) measure it as well")
    func sparseEdges() {
        var clock = EdgeClock(rate: 100)
        for edge in edges(rate: 100, error: -0.05, count: 600, every: 3) { clock.edge(at: edge) }
        let truth = 1e9 / (100 * 0.95)
        #expect(abs(clock.period - truth) < 0.001 * truth)
    }

    @Test("a prompt read holds the last edge's sample; a read 2.5 periods late holds the one two periods on")
    func newestSample() {
        var clock = EdgeClock(rate: 400)
        for edge in edges(rate: 400, error: 0, count: 10) { clock.edge(at: edge) }
        let last = clock.anchor!
        #expect(last == Double(clock.lastEdge!), "stamps without jitter are the grid")
        #expect(clock.newest(at: clock.lastEdge! + 100_000) == last)
        #expect(clock.newest(at: clock.lastEdge! + 6_250_000) == last + 2 * 2_500_000)
        #expect(clock.newest(at: clock.lastEdge! + 2_490_000) == last, "a read just before the next instant has not got it")
    }

    @Test("stamps late by up to 0.7 of a period (an emulated guest's timer): each edge still names its own sample, and the grid keeps to the earliest stamps")
    func lateStamps() {
        var clock = EdgeClock(rate: 400)
        var random = SeededRandom(seed: 400)
        let period = 1e9 / (400 * 1.02)
        var worst = 0.0
        for n in 0..<4000 {
            let truth = 1e9 + Double(n) * period
            // Mostly 100 to 200 µs late, one in twenty up to 1.75 ms.
            let late = Double.random(in: 0..<1, using: &random) < 0.05 ? Double.random(in: 0...1_750_000, using: &random)
                                                                          : Double.random(in: 100_000...200_000, using: &random)
            guard let instant = clock.edge(at: UInt64(truth + late)) else { Issue.record("edge \(n) refused"); continue }
            if n > 100 { worst = max(worst, abs(instant - truth)) }
        }
        // The stamps are 100 µs late at least: the grid keeps to them, and
        // a very late one moves it little.
        #expect(worst < 400_000, "the grid against the true instants: \(worst / 1000) µs at worst, against stamps up to 1750 µs late")
        #expect(abs(clock.period - period) < 0.001 * period)
        #expect(clock.impossibleEdges == 0)
    }

    @Test("edges at twice the chip's rate (a second chip on the line) are refused and counted")
    func impossibleEdges() {
        var clock = EdgeClock(rate: 100)
        let truth = edges(rate: 100, error: 0, count: 50)
        let doubled = truth.flatMap { [$0, $0 + 5_000_000] }
        for edge in doubled { clock.edge(at: edge) }
        #expect(clock.impossibleEdges == 50, "every second edge")
        #expect(abs(clock.period - 1e7) < 1e4)
    }
}
