// SPDX-License-Identifier: Apache-2.0
import AccelConfiguration
@testable import AccelDaemon
import AccelCore
import AccelDriver
import AccelMotion
import AccelProtocol
import NIOCore
import NIOEmbedded
import Testing

/// The request handling on NIO's test channel, without the binary: the
/// line decoder, the router, the fan-out and the hub, as the daemon wires
/// them, against a sampler that is never started.
struct HubRig {
    let loop = NIOAsyncTestingEventLoop()
    let channel: NIOAsyncTestingChannel
    let hub: Hub

    init(maxLineBytes: Int = 4096) async throws {
        let time = VirtualTime()
        let model = ChipModel(profile: .lis302dl, time: time)
        let sampler = Sampler(connect: { try Accelerometer(bus: model, time: time, part: .lis302dl) },
                              configuration: DeviceConfiguration(range: 2, rate: 100), settings: MotionSettings(), time: time)
        var socket = SocketSettings()
        socket.maxLineBytes = maxLineBytes
        let device = DeviceInfo(chip: "LIS302DL", location: "test", range: 2, rate: 100, mode: "normal", resolution: 8)
        let hub = Hub(eventLoop: loop, sampler: sampler, device: device, socket: socket,
                      calibrationStore: CalibrationStore(path: "/nonexistent/calibration.json"),
                      isPrivileged: { _ in false }, notify: { _ in })
        self.hub = hub
        channel = NIOAsyncTestingChannel(loop: loop)
        try await loop.executeInContext { [channel] in try ClientHandler.addHandlers(to: channel, hub: hub) }
        try await channel.connect(to: try SocketAddress(unixDomainSocketPath: "/test.sock")).get()
    }

    func send(_ text: String) async throws {
        try await channel.writeInbound(channel.allocator.buffer(string: text))
    }

    /// The next message the client is sent.
    func next() async throws -> Message {
        let buffer = try await channel.waitForOutboundWrite(as: ByteBuffer.self)
        let bytes = Array(buffer.readableBytesView)
        #expect(bytes.last == UInt8(ascii: "\n"), "every message ends its line")
        return try Message(parsing: bytes.dropLast())
    }

    func publish(seq: UInt64, events: [MotionEvent] = []) async throws {
        let frame = Frame(seq: seq, t: Double(seq) / 100, acceleration: Vector3(0, 0, 1), gravity: Vector3(0, 0, 1), user: .zero,
                          attitude: .level)
        try await loop.executeInContext { [hub] in hub.publish(frame, events) }
    }
}

@Suite("Request handling (NIO test channel)", .timeLimit(.minutes(1)))
struct RequestHandlingTests {
    @Test("hello on connect; watch answers with the true rate, and frames arrive at the client's decimation only")
    func watchAndDecimation() async throws {
        let rig = try await HubRig()
        guard case .hello(let hello) = try await rig.next() else { Issue.record("no hello"); return }
        #expect(hello.device.chip == "LIS302DL" && hello.protocolVersion == protocolVersion)
        try await rig.send(#"{"class":"watch","streams":["frames","shake"],"rate":30,"fields":["acc"]}"# + "\n")
        let reply = try await rig.next()
        #expect(reply == .watch(WatchReply(streams: [.frames, .shake], rate: 33.333, fields: .acc)), "\(reply)")
        for seq in UInt64(0)..<9 { try await rig.publish(seq: seq) }
        var seqs: [UInt64] = []
        for _ in 0..<3 {
            guard case .frame(let frame) = try await rig.next() else { continue }
            #expect(frame.acceleration != nil && frame.gravity == nil && frame.pitch == nil)
            seqs.append(frame.seq)
        }
        #expect(seqs.count == 3 && zip(seqs, seqs.dropFirst()).allSatisfy { $1 - $0 == 3 })
        try await rig.publish(seq: 9, events: [.shake(.started(t: 0.09, start: 0.05))])
        var got: Message
        repeat { got = try await rig.next() } while got.className == "frame"
        #expect(got == .event(.shake(.started(t: 0.09, start: 0.05))))
    }

    @Test("bad requests get errors that say what was wrong, and the connection answers the next one")
    func badRequests() async throws {
        let rig = try await HubRig()
        _ = try await rig.next()
        let cases: [(String, String)] = [
            ("{oops", "bad-json"), ("[1]", "not-an-object"), (#"{"streams":[]}"#, "no-class"),
            (#"{"class":"frobnicate"}"#, "unknown-class"), (#"{"class":"watch","streams":["nope"]}"#, "bad-field"),
            (#"{"class":"watch","rate":-1}"#, "bad-field"),
        ]
        for (line, code) in cases {
            try await rig.send(line + "\n")
            guard case .error(let error) = try await rig.next() else { Issue.record("\(line): no error"); continue }
            #expect(error.code == code, "\(line): \(error.message)")
        }
        try await rig.send(#"{"class":"poll"}"# + "\n")
        #expect(try await rig.next() == .poll(nil))
    }

    @Test("a line over the limit gets one line-too-long, even split across reads, and the rest of it is skipped")
    func lineTooLong() async throws {
        let rig = try await HubRig(maxLineBytes: 64)
        _ = try await rig.next()
        let long = String(repeating: "x", count: 50)
        try await rig.send("{\"class\":\"poll\",\"pad\":\"" + long)
        try await rig.send(long + long + "\"}\n" + #"{"class":"device"}"# + "\n")
        guard case .error(let error) = try await rig.next() else { Issue.record("no error"); return }
        #expect(error.code == "line-too-long")
        guard case .device(let device) = try await rig.next() else { Issue.record("the next request was not answered"); return }
        #expect(device.chip == "LIS302DL")
        // Blank lines and CRLF endings.
        try await rig.send("\n  \r\n" + #"{"class":"poll"}"# + "\r\n")
        #expect(try await rig.next() == .poll(nil))
    }

    @Test("privileged requests from a peer the kernel did not vouch for are refused, naming who may")
    func privileged() async throws {
        let rig = try await HubRig()
        _ = try await rig.next()
        for line in [#"{"class":"configure","range":8}"#, #"{"class":"selftest"}"#, #"{"class":"calibrate"}"#] {
            try await rig.send(line + "\n")
            guard case .error(let error) = try await rig.next() else { Issue.record("\(line) was not refused"); continue }
            #expect(error.code == "not-permitted" && error.message.contains("privileged-group"))
        }
    }

    @Test("poll and zero: nothing before the first sample, then the latest frame and this client's reference")
    func pollAndZero() async throws {
        let rig = try await HubRig()
        _ = try await rig.next()
        try await rig.send(#"{"class":"zero"}"# + "\n")
        guard case .error(let error) = try await rig.next() else { Issue.record("zero before data"); return }
        #expect(error.code == "no-data")
        try await rig.publish(seq: 41)
        try await rig.publish(seq: 42)
        try await rig.send(#"{"class":"poll"}"# + "\n" + #"{"class":"zero"}"# + "\n" + #"{"class":"zero","reset":true}"# + "\n")
        guard case .poll(let frame?) = try await rig.next() else { Issue.record("no frame polled"); return }
        #expect(frame.seq == 42 && frame.pitch == 0)
        #expect(try await rig.next() == .zero(pitch: 0, roll: 0))
        #expect(try await rig.next() == .zero(pitch: 0, roll: 0))
    }

    @Test("replies come in the order of the requests, status among them")
    func repliesInOrder() async throws {
        let rig = try await HubRig()
        _ = try await rig.next()
        try await rig.publish(seq: 7)
        try await rig.send(#"{"class":"status"}"# + "\n" + #"{"class":"poll"}"# + "\n" + #"{"class":"status"}"# + "\n")
        guard case .status(let report) = try await rig.next() else { Issue.record("status first"); return }
        #expect(report.clients == 1)
        guard case .poll(let frame?) = try await rig.next() else { Issue.record("then poll"); return }
        #expect(frame.seq == 7)
        guard case .status = try await rig.next() else { Issue.record("then status"); return }
    }
}
