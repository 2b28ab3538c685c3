// SPDX-License-Identifier: Apache-2.0
@testable import AccelConfiguration
@testable import AccelDaemon
import Testing
import TestSupport

/// Clients that stop reading, and the daemon stopping, on the in-process
/// daemon: the buffer's limit, the `dropped` count, the stuck-client
/// cut-off after client-stuck-seconds of the daemon's clock, goodbye.
@Suite("Slow clients and shutdown, in process on virtual time")
struct SlowClientsInProcessTests {
    private func tightDaemon() throws -> InProcessDaemon {
        var socket = SocketSettings()
        socket.clientBufferBytes = 8192
        socket.clientStuckSeconds = 2
        return try InProcessDaemon(rate: 400, socket: socket)
    }

    @Test("a client that never reads does not hold up another: every frame arrives; the stuck one is dropped then cut off")
    func stuckClient() throws {
        let daemon = try tightDaemon()
        let stuck = try watchingFrames(daemon)
        stuck.sink.stopReading()
        let good = try watchingFrames(daemon)
        daemon.run(seconds: 6)
        let messages = good.readAll()
        #expect(!messages.contains { $0["class"] as? String == "dropped" }, "nothing was dropped for the good client")
        let seqs = messages.compactMap { $0["seq"] as? Int }
        #expect(seqs.count >= 2399 && gaps(in: seqs) == 0, "6 s at 400 Hz, every sample: \(seqs.count)")
        #expect(stuck.sink.isClosed, "cut off")
        #expect(daemon.hub.control.sync { daemon.hub.sessions.count } == 1)
        // Its connection ended: what waited for it is gone, as a socket's outbox is at close.
        stuck.sink.readAgain()
        let linesAfterTheEnd = stuck.readAll().count
        #expect(linesAfterTheEnd == 0)
    }

    @Test("a stuck client is cut off once it has dropped lines for client-stuck-seconds of the daemon's clock, not before")
    func cutOffOnTheDaemonsClock() throws {
        let daemon = try tightDaemon()
        let stuck = try watchingFrames(daemon)
        stuck.sink.stopReading()
        let stopped = daemon.time.seconds
        daemon.run(seconds: 2)
        #expect(!stuck.sink.isClosed, "2 s after it stopped reading, of which less than 2 s dropping lines")
        while !stuck.sink.isClosed && daemon.time.seconds < stopped + 10 { daemon.run(seconds: 0.1) }
        let cutOff = daemon.time.seconds - stopped
        #expect(stuck.sink.isClosed && cutOff > 2 && cutOff <= 3.2, "cut off \(cutOff) s after it stopped reading (the check runs each second)")
    }

    @Test("a client that reads again in time gets its backlog whole and in order, then the count of what it missed, then frames again")
    func readsAgain() throws {
        let daemon = try tightDaemon()
        let slow = try watchingFrames(daemon)
        slow.sink.stopReading()
        daemon.run(seconds: 1)
        slow.sink.readAgain()
        daemon.run(seconds: 0.5)
        let messages = slow.readAll()
        let index = try #require(messages.firstIndex { $0["class"] as? String == "dropped" })
        let before = messages[..<index].compactMap { $0["seq"] as? Int }
        let after = messages[(index + 1)...].compactMap { $0["seq"] as? Int }
        let dropped = try #require(messages[index]["count"] as? Int)
        #expect(gaps(in: before) == 0 && gaps(in: after) == 0, "each run of frames whole")
        #expect(after.first! - before.last! - 1 == dropped, "the count is exactly the frames it missed")
        #expect(messages[index]["total"] as? Int == dropped)
        #expect(after.count >= 190 && !slow.sink.isClosed)
    }

    @Test("stopping: a watcher's last line is goodbye and its connection ends; requests after it get no reply")
    func shutdown() throws {
        let daemon = try InProcessDaemon()
        let watcher = try watchingFrames(daemon)
        daemon.run(seconds: 0.5)
        daemon.hub.control.sync { daemon.hub.stopServing() }
        watcher.send(#"{"class":"status"}"# + "\n")
        daemon.stop()
        let messages = watcher.readAll()
        #expect(!messages.contains { $0["class"] as? String == "status" }, "no reply once stopping")
        #expect(messages.last?["class"] as? String == "goodbye" && messages.last?["reason"] as? String == "acceld is stopping")
        #expect(watcher.sink.isClosed)
    }
}
