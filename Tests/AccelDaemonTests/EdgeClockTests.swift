// SPDX-License-Identifier: Apache-2.0
@testable import AccelDaemon
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
        let last = Double(clock.lastEdge!)
        #expect(clock.newest(at: clock.lastEdge! + 100_000) == last)
        #expect(clock.newest(at: clock.lastEdge! + 6_250_000) == last + 2 * 2_500_000)
        #expect(clock.newest(at: clock.lastEdge! + 2_490_000) == last, "a read just before the next instant has not got it")
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
