// SPDX-License-Identifier: Apache-2.0
@testable import AccelDaemon
import AccelCore
import AccelDriver
import AccelParts
import Testing
import TestSupport

/// The sampling loop owns the chip, and a request is a message to it
/// (issue 48): a configure to the slowest rate, whose turn-on takes
/// seconds, holds neither the other clients nor the watchdog's heartbeat,
/// and the device's description changes once, from the sampler.
@Suite("The sampling loop's requests, in process on virtual time")
struct SamplerOwnershipInProcessTests {
    static let parts = ChipProfile.supported.map(\.name)

    /// A part's rates in its first mode, the one a configure without a mode keeps.
    static func rates(_ part: ChipProfile) -> [Int] { part.modes[0].rates.map(\.hertz).sorted() }

    /// The daemon on `part` at its rate nearest above 100 Hz.
    static func daemon(_ part: ChipProfile) throws -> InProcessDaemon {
        try InProcessDaemon(part: part, rate: rates(part).first { $0 >= 100 } ?? rates(part).last!, range: part.ranges[0].fullScale)
    }

    @Test("while one client configures a part to its slowest rate, a new client's hello and status come at once",
          arguments: parts)
    func othersAnsweredDuringTurnOn(part name: String) throws {
        let part = ChipProfile.named(name)!
        let daemon = try Self.daemon(part)
        let configurer = daemon.connect()
        _ = configurer.readMessage()
        let started = daemon.time.nanoseconds
        configurer.send(#"{"class":"configure","rate":\#(Self.rates(part)[0])}"# + "\n")
        let newcomer = daemon.connect()
        #expect(newcomer.readMessage()?["class"] as? String == "hello")
        let status = newcomer.request(#"{"class":"status"}"#)
        #expect(status?["class"] as? String == "status", "\(status ?? [:])")
        // On virtual time nothing passes unless something waits: the
        // configure's turn-on (7 s at 1 Hz on a LIS3DH) held nobody.
        let waited = Double(daemon.time.nanoseconds - started) / 1e6
        #expect(waited <= 20, "\(name): the newcomer's hello and status after \(waited) ms of the chip's time")
        #expect(configurer.next("device")?["rate"] as? Int == Self.rates(part)[0])
    }

    @Test("across a configure to the slowest rate the sampler steps every half second while the chip turns on (the watchdog pings while steps come within 2 s)",
          arguments: parts)
    func heartbeatDuringTurnOn(part name: String) throws {
        let part = ChipProfile.named(name)!
        let rate = Self.rates(part)[0]
        let daemon = try Self.daemon(part)
        daemon.run(seconds: 0.5)
        let client = daemon.connect()
        _ = client.readMessage()
        let before = daemon.sampler.lastStep
        client.send(#"{"class":"configure","rate":\#(rate)}"# + "\n")
        var gaps: [UInt64] = [daemon.time.nanoseconds - before]
        var last = daemon.sampler.lastStep
        let turnOn = UInt64(part.turnOnPeriods) * 1_000_000_000 / UInt64(rate)
        while daemon.time.nanoseconds < before + turnOn + 2_000_000_000 {
            daemon.run(seconds: 0.05)
            if daemon.sampler.lastStep != last {
                gaps.append(daemon.sampler.lastStep - last)
                last = daemon.sampler.lastStep
            }
        }
        // Half a second while it turns on; a period once it reads (1 s at 1 Hz).
        let largest = Double(gaps.max()!) / 1e9
        #expect(largest <= max(0.55, 1.05 / Double(rate)), "\(name) to \(rate) Hz (turn-on \(Double(turnOn) / 1e9) s): steps \(largest) s apart")
        #expect(daemon.sampler.counters.published > 0 || rate < 2, "it reads again once the chip is on")
    }

    @Test("a device watcher gets one configured event per configure, with the new values; hello and status say them too")
    func oneConfiguredEvent() throws {
        let daemon = try InProcessDaemon(part: .lis3dh, rate: 100)
        let watcher = daemon.connect()
        _ = watcher.readMessage()
        _ = watcher.request(#"{"class":"watch","streams":["device"]}"#)
        let configurer = daemon.connect()
        _ = configurer.readMessage()
        let reply = try #require(configurer.request(#"{"class":"configure","rate":10}"#))
        #expect(reply["event"] as? String == "configured" && reply["rate"] as? Int == 10, "\(reply)")
        daemon.run(seconds: 2)
        let events = watcher.readAll().filter { $0["class"] as? String == "device" && $0["event"] as? String == "configured" }
        #expect(events.count == 1, "\(events)")
        #expect(events.first?["rate"] as? Int == 10 && (events.first?["message"] as? String)?.contains("10 Hz") == true, "\(events)")
        let hello = try #require(daemon.connect().readMessage()?["device"] as? [String: Any])
        #expect(hello["rate"] as? Int == 10)
    }

    @Test("a client's requests are answered in its order, a status behind a configure included; one that left gets nothing")
    func repliesInOrderAcrossTheSampler() throws {
        let daemon = try InProcessDaemon(part: .lis3dh, rate: 100)
        let client = daemon.connect()
        _ = client.readMessage()
        client.send(#"{"class":"configure","rate":1}"# + "\n" + #"{"class":"poll"}"# + "\n" + #"{"class":"status"}"# + "\n")
        let replies = client.readAll().compactMap { $0["class"] as? String }.filter { ["device", "poll", "status"].contains($0) }
        #expect(replies == ["device", "poll", "status"], "\(replies)")
        // Asked, and gone before the sampler answered: the answer goes nowhere.
        let leaving = daemon.connect()
        _ = leaving.readMessage()
        let session = try #require(leaving.session)
        // The sampler's queue held, so that the client is gone before it answers.
        daemon.sampler.queue.suspend()
        daemon.hub.control.sync { daemon.hub.received(Array((#"{"class":"selftest"}"# + "\n").utf8), from: session) }
        leaving.hangUp()
        daemon.sampler.queue.resume()
        daemon.settle()
        #expect(leaving.readAll().isEmpty && session.heldLines.isEmpty)
        #expect(daemon.hub.control.sync { daemon.hub.sessions.count } == 1)
    }
}
