// SPDX-License-Identifier: Apache-2.0
import AccelConfiguration
@testable import AccelDaemon
import AccelCore
import AccelDriver
import AccelMotion
import AccelParts
import AccelProtocol
#if canImport(Glibc)
import Glibc
#endif
import Testing

/// The request handling as the daemon wires it, without the binary: a
/// listening socket, the control queue reading requests and replying, the
/// fan-out writing frames on the sampler's queue, against a sampler that
/// is never started. The test is the client, on a real socket.
final class HubRig {
    let hub: Hub
    private let listener: Listener
    private let directory: String
    private var client: Int32
    private var received: [UInt8] = []

    init(maxLineBytes: Int = 4096, clientBufferBytes: Int = 256 * 1024, maxClients: Int = 64) throws {
        let time = VirtualTime()
        let model = ChipModel(profile: .lis302dl, time: time)
        let sampler = Sampler(connect: { try Accelerometer(bus: model, time: time, part: .lis302dl) },
                              configuration: DeviceConfiguration(range: 2, rate: 100), settings: MotionSettings(), time: time)
        var socket = SocketSettings()
        socket.maxLineBytes = maxLineBytes
        socket.clientBufferBytes = clientBufferBytes
        socket.maxClients = maxClients
        let device = DeviceInfo(chip: "LIS302DL", location: "test", range: 2, rate: 100, mode: "normal", resolution: 8)
        let hub = Hub(sampler: sampler, device: device, socket: socket,
                      calibrationStore: CalibrationStore(path: "/nonexistent/calibration.json"),
                      isPrivileged: { _ in false }, notify: { _ in })
        self.hub = hub
        var template = Array("/tmp/acceld-hubrig-XXXXXX".utf8CString)
        directory = String(cString: mkdtemp(&template))
        let path = directory + "/s.sock"
        listener = Listener(descriptor: try Listener.listen(path: path), hub: hub)
        hub.control.sync { [listener] in listener.start() }
        client = try connectedClient(path)
    }

    /// Hangs up and connects again: `next` then reads the new connection.
    func reconnect() throws {
        close(client)
        client = -1  // closed: deinit must not close the number again, which may be another's by then
        received = []
        client = try connectedClient(directory + "/s.sock")
    }

    /// Another client's whole conversation: every line it is sent until
    /// the daemon closes the connection (nil if it stays open for 5 s).
    func everythingSentToAnotherClient() throws -> [Message]? {
        let other = try connectedClient(directory + "/s.sock")
        defer { close(other) }
        var bytes: [UInt8] = []
        while true {
            var poll = pollfd(fd: other, events: Int16(POLLIN), revents: 0)
            guard Glibc.poll(&poll, 1, 5000) == 1 else { return nil }
            var chunk = [UInt8](repeating: 0, count: 4096)
            let n = read(other, &chunk, chunk.count)
            guard n > 0 else { break }
            bytes += chunk[..<n]
        }
        return try bytes.split(separator: UInt8(ascii: "\n")).map { try Message(parsing: Array($0)) }
    }

    deinit {
        if client >= 0 { close(client) }
        hub.control.sync { [listener, hub] in
            listener.stop()
            hub.closeAll(saying: "the test is over")
        }
        unlink(directory + "/s.sock")
        rmdir(directory)
    }

    func send(_ text: String) throws {
        let bytes = Array(text.utf8)
        #expect(bytes.withUnsafeBytes { write(client, $0.baseAddress, $0.count) } == bytes.count)
    }

    /// The next message the client is sent (within `timeout` ms).
    func next(timeout: Int32 = 5000) throws -> Message {
        while true {
            if let newline = received.firstIndex(of: UInt8(ascii: "\n")) {
                let line = Array(received[..<newline])
                received.removeFirst(newline + 1)
                return try Message(parsing: line)
            }
            var poll = pollfd(fd: client, events: Int16(POLLIN), revents: 0)
            guard Glibc.poll(&poll, 1, timeout) == 1 else { throw RigError.silent }
            var chunk = [UInt8](repeating: 0, count: 4096)
            let n = read(client, &chunk, chunk.count)
            guard n > 0 else { throw RigError.hungUp }
            received += chunk[..<n]
        }
    }

    enum RigError: Error { case silent, hungUp }

    func publish(seq: UInt64, events: [MotionEvent] = []) {
        let frame = Frame(seq: seq, t: Double(seq) / 100, acceleration: Vector3(0, 0, 1), gravity: Vector3(0, 0, 1), user: .zero,
                          attitude: .level)
        // As the sampler would at its next step: after the requests sent
        // so far were handled.
        hub.control.sync {}
        hub.sampler.queue.sync { [hub] in hub.publish(.frame(frame, events)) }
    }
}

private func connectedClient(_ path: String) throws -> Int32 {
    let fd = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0)
    let connected = Listener.withSocketAddress(path) { connect(fd, $0, $1) }
    guard connected == 0 else { throw HubRig.RigError.hungUp }
    return fd
}

@Suite("Request handling (a real socket, in process)", .timeLimit(.minutes(1)))
struct RequestHandlingTests {
    @Test("hello on connect; watch answers with the true rate, and frames arrive at the client's decimation only")
    func watchAndDecimation() throws {
        let rig = try HubRig()
        guard case .hello(let hello) = try rig.next() else { Issue.record("no hello"); return }
        #expect(hello.device.chip == "LIS302DL" && hello.protocolVersion == protocolVersion)
        try rig.send(#"{"class":"watch","streams":["frames","shake"],"rate":30,"fields":["acc"]}"# + "\n")
        let reply = try rig.next()
        #expect(reply == .watch(WatchReply(streams: [.frames, .shake], rate: 33.333, fields: .acc)), "\(reply)")
        for seq in UInt64(0)..<9 { rig.publish(seq: seq) }
        var seqs: [UInt64] = []
        for _ in 0..<3 {
            guard case .frame(let frame) = try rig.next() else { continue }
            #expect(frame.acceleration != nil && frame.gravity == nil && frame.pitch == nil)
            seqs.append(frame.seq)
        }
        #expect(seqs.count == 3 && zip(seqs, seqs.dropFirst()).allSatisfy { $1 - $0 == 3 })
        rig.publish(seq: 9, events: [.shake(.started(t: 0.09, start: 0.05))])
        var got: Message
        repeat { got = try rig.next() } while got.className == "frame"
        #expect(got == .event(.shake(.started(t: 0.09, start: 0.05))))
    }

    @Test("bad requests get errors that say what was wrong, and the connection answers the next one")
    func badRequests() throws {
        let rig = try HubRig()
        _ = try rig.next()
        let cases: [(String, String)] = [
            ("{oops", "bad-json"), ("[1]", "not-an-object"), (#"{"streams":[]}"#, "no-class"),
            (#"{"class":"frobnicate"}"#, "unknown-class"), (#"{"class":"watch","streams":["nope"]}"#, "bad-field"),
            (#"{"class":"watch","rate":-1}"#, "bad-field"),
        ]
        for (line, code) in cases {
            try rig.send(line + "\n")
            guard case .error(let error) = try rig.next() else { Issue.record("\(line): no error"); continue }
            #expect(error.code == code, "\(line): \(error.message)")
        }
        try rig.send(#"{"class":"poll"}"# + "\n")
        #expect(try rig.next() == .poll(nil))
    }

    @Test("a line over the limit gets one line-too-long, even split across reads, and the rest of it is skipped")
    func lineTooLong() throws {
        let rig = try HubRig(maxLineBytes: 64)
        _ = try rig.next()
        let long = String(repeating: "x", count: 50)
        try rig.send("{\"class\":\"poll\",\"pad\":\"" + long)
        try rig.send(long + long + "\"}\n" + #"{"class":"device"}"# + "\n")
        guard case .error(let error) = try rig.next() else { Issue.record("no error"); return }
        #expect(error.code == "line-too-long")
        guard case .device(let device) = try rig.next() else { Issue.record("the next request was not answered"); return }
        #expect(device.chip == "LIS302DL")
        // Blank lines and CRLF endings.
        try rig.send("\n  \r\n" + #"{"class":"poll"}"# + "\r\n")
        #expect(try rig.next() == .poll(nil))
    }

    @Test("privileged requests from a peer not allowed them are refused, naming who may")
    func privileged() throws {
        let rig = try HubRig()
        _ = try rig.next()
        for line in [#"{"class":"configure","range":8}"#, #"{"class":"selftest"}"#, #"{"class":"calibrate"}"#] {
            try rig.send(line + "\n")
            guard case .error(let error) = try rig.next() else { Issue.record("\(line) was not refused"); continue }
            #expect(error.code == "not-permitted" && error.message.contains("privileged-group"))
        }
    }

    @Test("poll and zero: nothing before the first sample, then the latest frame and this client's reference")
    func pollAndZero() throws {
        let rig = try HubRig()
        _ = try rig.next()
        try rig.send(#"{"class":"zero"}"# + "\n")
        guard case .error(let error) = try rig.next() else { Issue.record("zero before data"); return }
        #expect(error.code == "no-data")
        rig.publish(seq: 41)
        rig.publish(seq: 42)
        try rig.send(#"{"class":"poll"}"# + "\n" + #"{"class":"zero"}"# + "\n" + #"{"class":"zero","reset":true}"# + "\n")
        guard case .poll(let frame?) = try rig.next() else { Issue.record("no frame polled"); return }
        #expect(frame.seq == 42 && frame.pitch == 0)
        #expect(try rig.next() == .zero(pitch: 0, roll: 0))
        #expect(try rig.next() == .zero(pitch: 0, roll: 0))
    }

    @Test("replies come in the order of the requests, status among them")
    func repliesInOrder() throws {
        let rig = try HubRig()
        _ = try rig.next()
        rig.publish(seq: 7)
        try rig.send(#"{"class":"status"}"# + "\n" + #"{"class":"poll"}"# + "\n" + #"{"class":"status"}"# + "\n")
        guard case .status(let report) = try rig.next() else { Issue.record("status first"); return }
        #expect(report.clients == 1)
        guard case .poll(let frame?) = try rig.next() else { Issue.record("then poll"); return }
        #expect(frame.seq == 7)
        guard case .status = try rig.next() else { Issue.record("then status"); return }
    }

    @Test("a client that stops reading loses frames, counted; reading again, it gets its backlog whole and in order, then the count")
    func slowClientCatchesUp() throws {
        let rig = try HubRig(clientBufferBytes: 8192)
        _ = try rig.next()
        try rig.send(#"{"class":"watch","streams":["frames"]}"# + "\n")
        guard case .watch = try rig.next() else { Issue.record("no watch reply"); return }
        // More than the socket's kernel buffer and ours hold together.
        let published: UInt64 = 4000
        for seq in 0..<published { rig.publish(seq: seq) }
        var seqs: [UInt64] = []
        var dropped = 0
        func take(_ message: Message) {
            switch message {
            case .frame(let frame): seqs.append(frame.seq)
            case .dropped(let count, _): dropped += count
            default: Issue.record("unexpected \(message)")
            }
        }
        // The backlog drains as the client reads; then one more frame
        // carries the count of what did not fit.
        while let message = try? rig.next(timeout: 300) { take(message) }
        #expect(seqs.count > 100 && seqs.count < Int(published), "the backlog: \(seqs.count) frames")
        rig.publish(seq: published)
        repeat { take(try rig.next()) } while seqs.last != published
        #expect(seqs.first == 0 && zip(seqs, seqs.dropFirst()).allSatisfy { $0 < $1 }, "in order")
        #expect(seqs.count + dropped == Int(published) + 1, "every frame arrived or was counted: \(seqs.count) + \(dropped)")
        let gaps = zip(seqs, seqs.dropFirst()).map { Int($1 - $0) - 1 }.reduce(0, +)
        #expect(gaps == dropped, "the gaps are what was counted")
    }

    @Test("a client past max-clients is told too-many-clients and disconnected; the first keeps its connection, and once it hangs up a newcomer is served")
    func tooManyClients() throws {
        let rig = try HubRig(maxClients: 1)
        guard case .hello = try rig.next() else { Issue.record("no hello"); return }
        let refused = try rig.everythingSentToAnotherClient()
        guard let refused, refused.count == 1, case .error(let error) = refused[0] else {
            Issue.record("the second client got \(String(describing: refused)), not one error and the end"); return
        }
        #expect(error.code == "too-many-clients" && error.message.contains("max-clients"))
        try rig.send(#"{"class":"status"}"# + "\n")
        guard case .status(let report) = try rig.next() else { Issue.record("the first client lost its connection"); return }
        #expect(report.clients == 1)
        // The hang-up reaches the hub: the place is free again.
        var served = false
        for _ in 0..<50 where !served {
            try rig.reconnect()
            if case .hello = try rig.next() { served = true } else { usleep(20_000) }
        }
        #expect(served, "a newcomer is served once the first client left")
    }
}
