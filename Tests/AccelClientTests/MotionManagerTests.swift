// SPDX-License-Identifier: Apache-2.0
import AccelClient
import AccelCore
import AccelProtocol
import Dispatch
import Foundation
import Synchronization
import Testing
import TestSupport

/// Collects what handlers deliver, from any thread.
final class Collected<T: Sendable>: Sendable {
    private let items = Mutex<[T]>([])
    func add(_ item: T) { items.withLock { $0.append(item) } }
    var all: [T] { items.withLock { $0 } }

    /// Waits until `done` holds for what was collected, or `seconds` pass.
    func wait(seconds: Double = 10, until done: ([T]) -> Bool) -> [T] {
        let end = Date().addingTimeInterval(seconds)
        while Date() < end, !done(all) { usleep(10_000) }
        return all
    }
}

@Suite("AccelClient against the daemon on the chip model", .serialized, .ownThread)
struct MotionManagerTests {
    @Test("push and pull: accelerometer data in order at the interval asked for, the latest always readable, stop stops")
    func pushAndPull() throws {
        let daemon = try SocketDaemon(simulate: "rest", rate: 100)
        defer { daemon.stop() }
        let manager = MotionManager(socketPath: daemon.socketPath)
        #expect(manager.isAccelerometerAvailable)
        #expect(!manager.isAccelerometerActive)
        manager.accelerometerUpdateInterval = 0.02
        let received = Collected<AccelerometerData>()
        manager.startAccelerometerUpdates(to: DispatchQueue(label: "test")) { data, error in
            #expect(error == nil)
            if let data { received.add(data) }
        }
        #expect(manager.isAccelerometerActive)
        let data = received.wait { $0.count >= 40 }
        #expect(data.count >= 40)
        let steps = zip(data, data.dropFirst()).map { $1.sequence - $0.sequence }
        // 50 Hz from a 100 Hz chip is every second sample. A sample the
        // daemon lost (a loaded machine starves it: the full suite once
        // lost 6) is a step of 4, and counted.
        #expect(steps.allSatisfy { $0 >= 2 && $0 % 2 == 0 }, "every second sample: \(steps)")
        #expect(manager.lostSampleCount >= steps.reduce(0) { $0 + Int($1) - 2 }, "every gap counted")
        #expect(abs((data.last?.acceleration.z ?? 0) - 1) < 0.1, "flat and still reads +1 g on z")
        // Pull: what a program reads whenever it likes.
        manager.startAccelerometerUpdates()
        let latest = try #require(manager.accelerometerData)
        #expect(latest.sequence >= data.last!.sequence)
        manager.stopAccelerometerUpdates()
        #expect(!manager.isAccelerometerActive)
        let stopped = received.all.count
        usleep(300_000)
        #expect(received.all.count <= stopped + 2, "no deliveries after stop")
    }

    @Test("device motion as an async sequence: gravity at rest, and attitude relative to a reference once one is set")
    func deviceMotionSequence() async throws {
        let daemon = try SocketDaemon(simulate: "rest")
        defer { daemon.stop() }
        let manager = MotionManager(socketPath: daemon.socketPath)
        manager.deviceMotionUpdateInterval = 0.05
        manager.startDeviceMotionUpdates()
        var seen: [DeviceMotion] = []
        for await motion in manager.deviceMotionUpdates() {
            seen.append(motion)
            if seen.count == 10 { break }
        }
        let last = try #require(seen.last)
        #expect(abs(last.gravity.z - 1) < 0.1 && abs(last.userAcceleration.z) < 0.1)
        #expect(manager.deviceMotion != nil)
        var relative = Attitude(pitch: 0.3, roll: -0.2)
        relative.multiply(byInverseOf: Attitude(pitch: 0.3, roll: -0.2))
        #expect(abs(relative.pitch) < 1e-9 && abs(relative.roll) < 1e-9, "an attitude seen from itself is level")
        manager.setReferenceAttitudeToCurrent()
        usleep(200_000)
        let zeroed = try #require(manager.deviceMotion)
        #expect(abs(zeroed.attitude.pitch) < 0.02 && abs(zeroed.attitude.roll) < 0.02)
    }

    @Test("events arrive as an async sequence: the tour's orientations in order")
    func orientationEvents() async throws {
        let daemon = try SocketDaemon(simulate: "tour")
        defer { daemon.stop() }
        let manager = MotionManager(socketPath: daemon.socketPath)
        var faces: [DeviceOrientation] = []
        for await event in manager.events([.orientation]) {
            guard case .orientation(let change) = event else { continue }
            #expect(faces.last.map { $0 == change.previous } ?? true, "each change starts where the last ended")
            faces.append(change.orientation)
            if faces.count == 3 { break }
        }
        #expect(faces.count == 3 && Set(faces).count == 3)
    }

    @Test("a bus outage: the gap in the sequence is reported as lost samples, exactly as many as are missing")
    func lostSamples() throws {
        let daemon = try SocketDaemon(simulate: "rest", faults: ["gone@0.8+0.5"])
        defer { daemon.stop() }
        let manager = MotionManager(socketPath: daemon.socketPath)
        manager.accelerometerUpdateInterval = 0
        let received = Collected<AccelerometerData>()
        let notices = Collected<ConnectionNotice>()
        manager.startNoticeUpdates(to: DispatchQueue(label: "notices")) { notices.add($0) }
        manager.startAccelerometerUpdates(to: DispatchQueue(label: "data")) { data, _ in if let data { received.add(data) } }
        let data = received.wait { $0.count >= 250 }
        let gaps = zip(data, data.dropFirst()).map { Int($1.sequence - $0.sequence) - 1 }.reduce(0, +)
        let reported = notices.all.reduce(0) { if case .lostSamples(let n) = $1 { $0 + n } else { $0 } }
        #expect(gaps > 0, "the outage left a gap")
        #expect(reported == gaps && manager.lostSampleCount == gaps, "gaps \(gaps), reported \(reported)")
        #expect(notices.all.contains { if case .device(let d) = $0 { d.event == "lost" } else { false } })
    }

    @Test("the daemon restarts: disconnection and reconnection are reported, and data resumes")
    func reconnects() throws {
        // In a folder of its own: each daemon removes its own folder when done.
        let socket = scratchDirectory() + "/acceld.sock"
        var daemon = try SocketDaemon(simulate: "rest", socketPath: socket)
        let manager = MotionManager(socketPath: socket)
        let received = Collected<AccelerometerData>()
        let notices = Collected<ConnectionNotice>()
        manager.startNoticeUpdates(to: DispatchQueue(label: "notices")) { notices.add($0) }
        manager.accelerometerUpdateInterval = 0.05
        let errors = Collected<String>()
        manager.startAccelerometerUpdates(to: DispatchQueue(label: "data")) { data, error in
            if let data { received.add(data) }
            if let error { errors.add("\(error)") }
        }
        _ = received.wait { $0.count >= 5 }
        daemon.stop()
        _ = notices.wait { $0.contains { if case .disconnected = $0 { true } else { false } } }
        let before = received.all.count
        usleep(500_000)
        daemon = try SocketDaemon(simulate: "rest", socketPath: socket)
        defer { daemon.stop() }
        let after = received.wait { $0.count >= before + 5 }
        #expect(after.count >= before + 5, "data resumed after the restart; notices \(notices.all)")
        let reconnected = notices.all.compactMap { if case .reconnected(let away) = $0 { away } else { nil } }
        #expect(reconnected.count == 1 && reconnected[0] >= 0.4, "reconnected after \(reconnected)")
        #expect(errors.all.count == 1, "the handler heard of the outage once: \(errors.all)")
    }

    @Test("no daemon yet: push handlers get ClientError.noDaemon once, as Core Motion's get errors, then samples once acceld starts")
    func noDaemonThenSamples() throws {
        let socket = scratchDirectory() + "/acceld.sock"
        let manager = MotionManager(socketPath: socket)
        manager.accelerometerUpdateInterval = 0.05
        let received = Collected<AccelerometerData>()
        let errors = Collected<ClientError?>()
        manager.startAccelerometerUpdates(to: DispatchQueue(label: "data")) { data, error in
            if let data { received.add(data) }
            if let error { errors.add(error as? ClientError) }
        }
        _ = errors.wait(seconds: 5) { !$0.isEmpty }
        usleep(1_000_000)  // the back-off tries several times meanwhile
        #expect(errors.all == [.noDaemon(socket)], "one error for the outage: \(errors.all)")
        let daemon = try SocketDaemon(simulate: "rest", socketPath: socket)
        defer { daemon.stop() }
        let data = received.wait { $0.count >= 5 }
        #expect(data.count >= 5, "samples once acceld is there")
        #expect(errors.all.count == 1)
    }

    @Test("a newer daemon (protocol 4, unknown fields, an unknown class, a line that is not JSON) is read for what this client knows, and said")
    func newerDaemon() throws {
        let fake = try FakeDaemon(lines: [
            #"{"class":"hello","protocol":4,"version":"9.0","features":["gestures"],"device":{"chip":"LIS9000","location":"fake","range":2,"rate":100,"mode":"normal","resolution":8,"state":"ok","colour":"blue"}}"#,
            #"{"class":"gesture","t":1.0,"kind":"wave"}"#,
            #"{"class":"frame","seq":1,"t":0.01,"acc":[0,0,1],"quaternion":[1,0,0,0]}"#,
            "not json at all",
            #"{"class":"frame","seq":2,"t":0.02,"acc":[0,0,1],"jerk":[0,0,0]}"#,
            #"{"class":"frame","seq":4,"t":0.04,"acc":[0,0,1]}"#,
        ])
        defer { fake.stop() }
        let connection = try DaemonConnection(path: fake.path)
        #expect(connection.hello.protocolVersion == 4 && connection.device.chip == "LIS9000")
        #expect(connection.newerProtocolNote?.contains("speaks protocol 4, this client \(protocolVersion)") == true, "\(connection.newerProtocolNote ?? "no note")")
        let manager = MotionManager(socketPath: fake.path)
        manager.accelerometerUpdateInterval = 0
        let received = Collected<UInt64>()
        manager.startAccelerometerUpdates(to: DispatchQueue(label: "data")) { data, _ in if let data { received.add(data.sequence) } }
        #expect(received.wait { $0.count >= 3 } == [1, 2, 4])
        #expect(manager.lostSampleCount == 1)
    }

    @Test("lines passed on unread: every byte in order, whatever the reads' sizes, a line longer than the buffer whole, at most the limit at a time")
    func linesPassedOn() throws {
        let hello = #"{"class":"hello","protocol":2,"version":"0.2.0","device":{"chip":"LIS302DL","location":"fake","range":2,"rate":400,"mode":"normal","resolution":8,"state":"ok"}}"#
        var lines: [String] = []
        for seq in 1...3000 {
            // Lengths that straddle every read boundary; one line of 200 KB
            // (past the 64 KB a connection starts with) in the middle.
            let padding = seq == 1500 ? String(repeating: "x", count: 200_000) : String(repeating: " ", count: seq % 97)
            lines.append(#"{"class":"frame","seq":\#(seq),"t":\#(Double(seq) / 400)\#(padding)}"#)
        }
        let fake = try FakeDaemon(lines: [hello] + lines)
        defer { fake.stop() }
        let connection = try DaemonConnection(path: fake.path)
        var received: [UInt8] = [], count = 0, round = 0
        while count < lines.count {
            round += 1
            // By runs (a limit, or none) and a line at a time, alternately.
            if round % 3 == 2, let line = try connection.nextLine(timeout: 5) {
                received += line + [0x0A]
                count += 1
            } else if let run = try connection.nextLines(limit: round % 3 == 0 ? nil : 1 + round % 7, timeout: 5) {
                #expect(run.count >= 1 && run.count <= (round % 3 == 0 ? .max : 1 + round % 7))
                #expect(run.bytes.last == 0x0A && run.bytes.filter { $0 == 0x0A }.count == run.count)
                received += run.bytes
                count += run.count
            } else {
                Issue.record("nothing within 5 s after \(count) lines")
                return
            }
        }
        #expect(count == lines.count)
        #expect(received == Array(lines.map { $0 + "\n" }.joined().utf8))
        // All taken: nothing more until the timeout.
        #expect(try connection.nextLines(timeout: 0.1) == nil)
    }

    @Test("events by callback: a double tap knocked on the chip reaches the handler as one tap")
    func tapCallback() throws {
        let daemon = try SocketDaemon(simulate: try writeDoubleTapTrace(in: scratchDirectory()))
        defer { daemon.stop() }
        let manager = MotionManager(socketPath: daemon.socketPath)
        // Every frame too, so that samples the daemon lost show.
        manager.accelerometerUpdateInterval = 0
        manager.startAccelerometerUpdates()
        let events = Collected<MotionEvent>()
        manager.startEventUpdates([.tap, .shake], to: DispatchQueue(label: "events")) { events.add($0) }
        let taps = events.wait(seconds: 8) { !$0.isEmpty }.compactMap { if case .tap(let tap) = $0 { tap } else { nil } }
        let tap = try #require(taps.first, "\(events.all)")
        #expect(tap.direction.description == "-z")
        // A starved machine can lose one of a knock's two samples (the
        // daemon's tap stream test says more); with none lost, both count.
        if manager.lostSampleCount == 0 { #expect(tap.count == 2 && taps.count == 1, "\(taps)") }
        manager.stopEventUpdates()
    }

    @Test("no daemon, a stale socket: one clear error each, with what to do and the exit code a tool uses")
    func connectionErrors() throws {
        let scratch = scratchDirectory()
        #expect(throws: ClientError.noDaemon(scratch + "/none.sock")) { try DaemonConnection(path: scratch + "/none.sock") }
        // The unit to start, and both ways to name another socket.
        let noDaemon = ClientError.noDaemon("x").description
        #expect(ClientError.noDaemon("x").exitCode == 69 && noDaemon.contains("systemctl start acceld.socket")
                && noDaemon.contains("--socket PATH") && noDaemon.contains("ACCELD_SOCKET"), "\(noDaemon)")
        #expect(ClientError.permission("x").exitCode == 77 && ClientError.permission("x").description.contains("usermod -aG acceld"))
        // A socket file nobody listens on.
        let stale = scratch + "/stale.sock"
        let fd = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0)
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        withUnsafeMutableBytes(of: &address.sun_path) { raw in for (i, b) in stale.utf8.enumerated() { raw[i] = b } }
        _ = withUnsafePointer(to: &address) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, socklen_t(MemoryLayout<sockaddr_un>.size)) } }
        close(fd)
        #expect(throws: ClientError.refused(stale)) { try DaemonConnection(path: stale) }
        // A file that is no socket at all is not called a stale socket.
        let regular = try temporaryFile("not a socket\n", name: "regular.sock")
        #expect(throws: ClientError.notASocket(regular)) { try DaemonConnection(path: regular) }
        #expect(ClientError.notASocket(regular).description.hasPrefix("\(regular) is not a socket") && ClientError.notASocket(regular).exitCode == 69)
        #expect(!MotionManager(socketPath: stale).isAccelerometerAvailable)
    }

    @Test("request and reply in types: status and device from a connection, an error reply thrown with its code")
    func requests() throws {
        let daemon = try SocketDaemon(simulate: "rest")
        defer { daemon.stop() }
        let connection = try DaemonConnection(path: daemon.socketPath)
        #expect(connection.hello.protocolVersion == protocolVersion && connection.device.chip == "LIS302DL")
        guard case .status(let status) = try connection.request(.status) else { Issue.record("no status"); return }
        #expect(status.clients == 1 && status.device.rate == 100)
        _ = try connection.request(.watch(streams: [.frames], rate: 10, fields: .acc, latency: nil))
        guard case .device(let device) = try connection.request(.device) else { Issue.record("no device"); return }
        #expect(device.event == nil)
        do {
            _ = try connection.request(.configure(range: 3, rate: nil, mode: nil, tunables: [:]))
            Issue.record("a range the part lacks was accepted")
        } catch {
            // Not privileged here or not possible on the part: either way a typed refusal that explains.
            guard case .refusedRequest(let code, let message) = error else { Issue.record("\(error)"); return }
            #expect(["not-permitted", "device-error"].contains(code) && !message.isEmpty)
        }
    }
}
