// SPDX-License-Identifier: Apache-2.0
@testable import AccelClient
import AccelProtocol
import Foundation
import Synchronization
import Testing
import TestSupport

/// DaemonLink, the one reconnecting connection MotionManager, the gateway
/// and the sensor proxy use, against a scripted acceld in the process. The
/// waits between attempts are the test's own (`pause`), so nothing here
/// depends on how fast the host runs: the tests check what is said and in
/// which order; the wall clock only bounds a wait for what must come.
@Suite("DaemonLink: reconnection, back-off, goodbye, lost samples", .timeLimit(.minutes(1)))
struct DaemonLinkTests {
    static let hello = #"{"class":"hello","protocol":2,"version":"0.2.0","device":{"chip":"LIS3DH","location":"fake","range":2,"rate":100,"mode":"normal","resolution":12,"state":"ok"}}"#
    static let watch = Request.watch(streams: [.frames, .device], rate: nil, fields: .all, latency: nil)

    static func frame(_ seq: Int) -> String { #"{"class":"frame","seq":\#(seq),"t":\#(Double(seq) / 100),"acc":[0,0,1]}"# }
    static func watchReply(rate: Int) -> String { #"{"class":"watch","streams":["device","frames"],"rate":\#(rate)}"# }

    /// What an update says, in a word and its detail: what the tests compare.
    static func describe(_ update: DaemonLink.Update) -> String {
        switch update {
        case .connected(_, let away): away == nil ? "connected" : "reconnected"
        case .message(_, .frame(let frame)): "frame \(frame.seq)"
        case .message(_, let message): message.className
        case .lostSamples(let n): "lost \(n)"
        case .disconnected(let error): "disconnected: \(error)"
        }
    }

    /// A link to `path` whose waits between attempts return at once (or
    /// do what `pause` does), collecting what it says.
    static func link(_ path: String, pause: @escaping @Sendable (Double) -> Bool = { _ in true }) -> (DaemonLink, Collected<String>) {
        let said = Collected<String>()
        let link = DaemonLink(socketPath: path, backoff: .program, label: "test.link", pause: pause) { updates in
            for update in updates { said.add(describe(update)) }
        }
        link.watch(watch)
        return (link, said)
    }

    static func socketPath() -> String { scratchDirectory() + "/acceld.sock" }

    @Test("acceld goes away: said once, connected again, the watch sent again on the new connection")
    func reconnects() throws {
        let path = Self.socketPath()
        let daemon = try ScriptedDaemon(path: path, visits: [
            .init(hello: Self.hello, lines: [Self.frame(1), Self.frame(2), Self.frame(3)], holds: false),
            .init(hello: Self.hello, lines: [Self.frame(7)], holds: true),
        ])
        defer { daemon.stop() }
        let (link, said) = Self.link(path)
        link.start()
        defer { link.stop() }
        let all = said.wait(seconds: 30) { $0.contains("frame 7") }
        #expect(all == ["connected", "frame 1", "frame 2", "frame 3", "disconnected: acceld closed the connection: end of stream",
                        "reconnected", "frame 7"])
        #expect(daemon.received.count == 2)
        #expect(daemon.received.allSatisfy { $0.first == Self.watch.json })
        #expect(link.isConnected)
        #expect(link.lostSampleCount == 0)
    }

    @Test("lost samples: gaps counted in the chip's samples at the watched rate, not across a reconnection; acceld's drops apart")
    func lostSamples() throws {
        let path = Self.socketPath()
        let daemon = try ScriptedDaemon(path: path, visits: [
            // 25 Hz on a 100 Hz chip: a frame every 4 samples; frame 12 is missing.
            .init(hello: Self.hello, lines: [Self.watchReply(rate: 25), Self.frame(4), Self.frame(8), Self.frame(16)], holds: false),
            .init(hello: Self.hello, lines: [Self.watchReply(rate: 100), Self.frame(500), Self.frame(501),
                                             #"{"class":"dropped","count":3,"total":3}"#, Self.frame(505)], holds: true),
        ])
        defer { daemon.stop() }
        let (link, said) = Self.link(path)
        link.start()
        defer { link.stop() }
        let all = said.wait(seconds: 30) { $0.contains("frame 505") }
        #expect(all == ["connected", "watch", "frame 4", "frame 8", "lost 4", "frame 16",
                        "disconnected: acceld closed the connection: end of stream",
                        "reconnected", "watch", "frame 500", "frame 501", "dropped", "lost 3", "frame 505"])
        #expect(link.lostSampleCount == 7)
        #expect(link.droppedCount == 3)
    }

    @Test("goodbye: the connection ends when acceld says so, not when its socket closes, and the link connects again")
    func goodbye() throws {
        let path = Self.socketPath()
        // The first visit holds its connection after the goodbye: only the goodbye can end it.
        let daemon = try ScriptedDaemon(path: path, visits: [
            .init(hello: Self.hello, lines: [Self.frame(1), #"{"class":"goodbye","reason":"restart"}"#, Self.frame(2)], holds: true),
            .init(hello: Self.hello, lines: [Self.frame(1)], holds: true),
        ])
        defer { daemon.stop() }
        let (link, said) = Self.link(path)
        link.start()
        defer { link.stop() }
        let all = said.wait(seconds: 30) { $0.contains("reconnected") && $0.last == "frame 1" }
        #expect(all == ["connected", "frame 1", "goodbye", "disconnected: acceld closed the connection: acceld said goodbye: restart",
                        "reconnected", "frame 1"])
        #expect(daemon.received.count == 2)
    }

    @Test("back-off: 0.1 s doubling to the ceiling while acceld is away, said once an outage; from the first wait again after a connection")
    func backoff() throws {
        let path = Self.socketPath()
        let waits = Collected<Double>()
        let daemon = Mutex<ScriptedDaemon?>(nil)
        let stopping = Mutex<DaemonLink?>(nil)
        let (link, said) = Self.link(path) { seconds in
            waits.add(seconds)
            let count = waits.all.count
            // acceld starts after the eighth wait; it serves one connection and goes.
            if count == 8 {
                let started = try? ScriptedDaemon(path: path, visits: [.init(hello: Self.hello, lines: [Self.frame(1)], holds: false)])
                daemon.withLock { $0 = started }
            }
            if count < 11 { return true }
            stopping.withLock { $0 }?.stop()
            return false
        }
        stopping.withLock { $0 = link }
        link.start()
        defer { link.stop(); daemon.withLock { $0?.stop() } }
        let delays = waits.wait(seconds: 30) { $0.count >= 11 }
        #expect(delays == [0.1, 0.2, 0.4, 0.8, 1.6, 2, 2, 2, 0.1, 0.2, 0.4])
        let all = said.wait(seconds: 30) { $0.count >= 4 }
        #expect(all.count == 4)
        #expect(all.first?.hasPrefix("disconnected: acceld is not running") == true)
        #expect(Array(all.dropFirst()) == ["reconnected", "frame 1", "disconnected: acceld closed the connection: end of stream"])
    }

    @Test("stop ends the link; start begins it again, the watch sent on the new connection")
    func stopAndStart() throws {
        let path = Self.socketPath()
        let daemon = try ScriptedDaemon(path: path, visits: [
            .init(hello: Self.hello, lines: [Self.frame(1)], holds: true),
            .init(hello: Self.hello, lines: [Self.frame(2)], holds: true),
        ])
        defer { daemon.stop() }
        let (link, said) = Self.link(path)
        link.start()
        _ = said.wait(seconds: 30) { $0.contains("frame 1") }
        link.stop()
        // The link lets go of its connection: the daemon sees it closed.
        _ = said.wait(seconds: 30) { _ in !link.isConnected }
        #expect(!link.isConnected)
        link.start()
        defer { link.stop() }
        let all = said.wait(seconds: 30) { $0.contains("frame 2") }
        #expect(all == ["connected", "frame 1", "connected", "frame 2"])
        #expect(daemon.received.count == 2 && daemon.received.allSatisfy { $0.first == Self.watch.json })
    }
}
