// SPDX-License-Identifier: Apache-2.0
import AccelCore
import AccelParts
@testable import AccelDriver
import Testing

@Suite("The chip model's INT pin as a line")
struct SimulatedInterruptLineTests {
    @Test("data ready on INT1 at 400 Hz: one edge per sample, stamped with its instant, while each is read at once")
    func edgePerSample() throws {
        let (driver, model, time) = try partModel(.lis302dl)
        try driver.configure(DeviceConfiguration(range: 2, rate: 400, interruptPin: .int1))
        let line = SimulatedInterruptLine(model: model, pin: .int1, time: time)
        _ = try driver.read()
        var instants: [UInt64] = []
        for _ in 0..<100 {
            let edges = try line.wait(nanoseconds: 10_000_000)
            #expect(edges.count == 1)
            instants += edges.map(\.instant)
            time.advance(seconds: 0.0002)  // the wake-up and the transfer
            #expect(try driver.read().status.contains(.dataReady))
        }
        let steps = zip(instants, instants.dropFirst()).map { $1 - $0 }
        #expect(steps.allSatisfy { $0 == model.periodNanoseconds }, "\(Set(steps))")
        #expect(model.counters.samplesLost == 0)
    }

    @Test("a read that misses a sample leaves the latched pin high: no edge for it, and the next edge after the read")
    func lateReadNoEdge() throws {
        let (driver, model, time) = try partModel(.lis302dl)
        try driver.configure(DeviceConfiguration(range: 2, rate: 100, interruptPin: .int1))
        let line = SimulatedInterruptLine(model: model, pin: .int1, time: time)
        _ = try driver.read()
        let first = try #require(try line.wait(nanoseconds: 50_000_000).first)
        time.set(nanoseconds: first.instant + 25_000_000)  // two and a half periods late
        #expect(try line.wait(nanoseconds: 1_000_000).isEmpty, "the pin never fell: no edge")
        #expect(try driver.read().status.contains(.overrun))
        let next = try #require(try line.wait(nanoseconds: 50_000_000).first)
        #expect(next.instant == first.instant + 3 * model.periodNanoseconds)
        #expect(next.sequence == first.sequence + 1)
    }

    @Test("a rise while nobody waits is an edge all the same, stamped at its sample, as the kernel queues it")
    func riseWhileNobodyWaits() throws {
        let (driver, model, time) = try partModel(.lis302dl)
        try driver.configure(DeviceConfiguration(range: 2, rate: 400, interruptPin: .int1))
        let line = SimulatedInterruptLine(model: model, pin: .int1, time: time)
        _ = try driver.read()
        let first = try #require(try line.wait(nanoseconds: 10_000_000).first)
        #expect(try driver.read().status.contains(.dataReady))
        // The waiter is late: the next sample comes (the pin rises) before it waits again.
        time.set(nanoseconds: first.instant + model.periodNanoseconds * 3 / 2)
        let edges = try line.wait(nanoseconds: 0)
        #expect(edges.map(\.instant) == [first.instant + model.periodNanoseconds])
        #expect(edges.map(\.sequence) == [first.sequence + 1])
    }

    @Test("nothing routed: the line times out without an edge")
    func nothingRouted() throws {
        let (driver, model, time) = try partModel(.lis3dh)
        try driver.configure(DeviceConfiguration(range: 2, rate: 100))
        let line = SimulatedInterruptLine(model: model, pin: .int1, time: time)
        #expect(try line.wait(nanoseconds: 100_000_000).isEmpty)
        #expect(try line.level() == false)
    }
}
