// SPDX-License-Identifier: Apache-2.0
import AccelCore
import AccelMotion
import AccelProtocol
import Foundation
import Testing

/// The repository's root, from this file's path.
let repositoryRoot = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent().path

/// Every example line of docs/PROTOCOL.md: from the client (→) or the daemon.
func documentedLines() throws -> [(fromClient: Bool, line: String)] {
    let text = try String(contentsOfFile: repositoryRoot + "/docs/PROTOCOL.md", encoding: .utf8)
    var lines: [(Bool, String)] = []
    var inBlock = false
    for raw in text.split(separator: "\n", omittingEmptySubsequences: false) {
        let line = String(raw)
        if line.hasPrefix("```") {
            inBlock = !inBlock && ["```session", "```session-example", "```json"].contains(line)
            continue
        }
        guard inBlock else { continue }
        if line.hasPrefix("→ ") { lines.append((true, String(line.dropFirst(2)))) }
        else if line.hasPrefix("← ") { lines.append((false, String(line.dropFirst(2)))) }
        else if line.hasPrefix("{") { lines.append((false, line)) }
    }
    return lines
}

/// A request of every kind, with and without its optional fields.
let everyKindOfRequest: [Request] = [
    .watch(streams: [.frames, .shake], rate: 12.5, fields: [.acc, .attitude], latency: 50),
    .watch(streams: StreamName.events, rate: nil, fields: .all, latency: nil),
    .watch(streams: [.vibration, .machine], rate: nil, fields: .all, latency: nil,
           vibration: VibrationWatch(window: 2, overlap: 0.75, spectrumBins: 128, envelopeBins: 0)),
    .unwatch(streams: nil), .unwatch(streams: [.tap]), .poll, .status, .device, .selftest,
    .configure(range: 8, rate: 400, mode: "normal", tunables: ["shake.threshold": "1.5"]),
    .calibrateFlat(seconds: 2), .calibrateSet(Calibration(offset: Vector3(0.01, -0.02, 0.03), scale: Vector3(1, 1.01, 0.99))),
    .calibrateReset, .zero(reset: false), .zero(reset: true),
]

@Suite("The protocol's types")
struct ProtocolTypesTests {
    @Test("every message in docs/PROTOCOL.md decodes to its type and encodes back byte for byte, and every class is there")
    func documentRoundTrips() throws {
        var classes = Set<String>()
        for (fromClient, line) in try documentedLines() where !fromClient {
            let message = try Message(parsing: Array(line.utf8))
            if case .unknown(let name, _) = message { Issue.record("\(name) is not a known class: \(line)") }
            #expect(message.json == line)
            classes.insert(message.className)
            if case .poll(let frame?) = message { #expect(Message.frame(frame).json.hasPrefix(#"{"class":"frame""#)) }
        }
        #expect(classes == Set(Message.classNames), "classes documented by example: missing \(Set(Message.classNames).subtracting(classes).sorted())")
    }

    @Test("every request in docs/PROTOCOL.md decodes, and its encoding decodes to the same request")
    func documentedRequests() throws {
        var classes = Set<String>()
        for (fromClient, line) in try documentedLines() where fromClient {
            do {
                let request = try Request(parsing: Array(line.utf8))
                #expect(try Request(parsing: Array(request.json.utf8)) == request, "\(line) → \(request.json)")
                classes.insert(request.className)
            } catch {
                // The session shows an unknown class on purpose.
                #expect(error.code == "unknown-class", "\(line): \(error.message)")
            }
        }
        #expect(classes.isSuperset(of: ["watch", "unwatch", "poll", "zero", "status", "configure"]))
    }

    @Test("every kind of request round-trips through its encoding", arguments: everyKindOfRequest)
    func requestRoundTrip(_ request: Request) throws {
        #expect(try Request(parsing: Array(request.json.utf8)) == request, "\(request.json)")
    }

    @Test("a request field of the wrong type is a bad-field error naming the field, never taken as its default", arguments: [
        (#"{"class":"zero","reset":"yes"}"#, #""reset" must be true or false, not "yes""#),
        (#"{"class":"zero","reset":1}"#, #""reset" must be true or false, not 1"#),
        (#"{"class":"calibrate","reset":"true"}"#, #""reset" must be true or false"#),
        (#"{"class":"watch","rate":"10"}"#, #""rate" must be a number"#),
        (#"{"class":"watch","streams":"frames"}"#, #""streams" must be an array of strings"#),
        (#"{"class":"configure","mode":3}"#, #""mode" must be a string"#),
        (#"{"class":"calibrate","offset":[0,0]}"#, #""offset" must be an array of three numbers"#),
    ])
    func mistypedRequestField(_ line: String, _ expected: String) {
        do {
            let request = try Request(parsing: Array(line.utf8))
            Issue.record("\(line) was taken as \(request)")
        } catch {
            #expect(error.code == "bad-field")
            #expect(error.message.contains(expected), "\(error.message)")
        }
    }

    @Test("a newer daemon's unknown fields are ignored and its unknown classes kept, never a crash")
    func forwardCompatible() throws {
        let frame = try Message(parsing: Array(#"{"class":"frame","seq":7,"t":1.5,"acc":[0,0,1],"jerk":[1,2,3],"quality":"good"}"#.utf8))
        #expect(frame == .frame(FrameMessage(seq: 7, t: 1.5, acceleration: Vector3(0, 0, 1))))
        let novel = try Message(parsing: Array(#"{"class":"temperature","celsius":21.5}"#.utf8))
        #expect(novel.className == "temperature")
        if case .unknown(_, let fields) = novel { #expect(fields["celsius"] == .number(21.5)) } else { Issue.record("\(novel)") }
        #expect(novel.json == #"{"class":"temperature","celsius":21.5}"#)
    }

    @Test("a known class with a missing or mistyped field is an error naming the field", arguments: [
        (#"{"class":"frame","t":1}"#, "\"seq\" is missing"),
        (#"{"class":"shake","t":1,"phase":"wobble","start":0}"#, "unknown phase \"wobble\""),
        (#"{"class":"device","chip":3}"#, "\"chip\" must be a string"),
        (#"[1,2]"#, "not an object with a \"class\""),
        // Found by fuzz-request: an empty class parsed as a message of no class.
        (#"{"class":""}"#, "not an object with a \"class\""),
        ("{", "not JSON"),
    ])
    func malformed(_ line: String, _ expected: String) {
        #expect(throws: MessageError.self) { try Message(parsing: Array(line.utf8)) }
        do {
            _ = try Message(parsing: Array(line.utf8))
        } catch {
            #expect(error.description.contains(expected), "\(error)")
        }
    }

    @Test("an event from the pipeline encodes to what the wire reads back as the same event")
    func events() throws {
        let events: [MotionEvent] = [
            .orientation(.init(t: 1, orientation: .portrait, previous: .faceUp)),
            .shake(.started(t: 2, start: 1.75)), .shake(.ended(t: 3, start: 1.75, duration: 0.5, peak: 2.5)),
            .freeFall(.started(t: 4, start: 3.92)), .freeFall(.confirmed(t: 4.1, start: 3.92)),
            .freeFall(.withdrawn(t: 4.2, start: 3.92, duration: 0.25)), .freeFall(.ended(t: 4.5, start: 3.92, duration: 0.58, height: 1.65)),
            .movement(.init(t: 5, start: 4.5, duration: 0.5, direction: .init(axis: .y, positive: false), peak: 0.4)),
            .tap(.init(t: 6, start: 5.5, count: 2, direction: .init(axis: .z, positive: true), peak: 2.25)),
        ]
        for event in events {
            #expect(try Message(parsing: Array(event.json.utf8)) == .event(event), "\(event.json)")
        }
    }
}

@Suite("Frames from a part with a gyroscope")
struct GyroscopeFrameTests {
    /// A second of a board turning about its z axis at 0.5 rad/s, flat.
    func frames() -> [Frame] {
        var pipeline = MotionPipeline()
        var events: [MotionEvent] = []
        return (0..<100).map { i in
            pipeline.process(Sample(seq: UInt64(i), t: Double(i) / 100, counts: Counts(0, 0, 0), g: Vector3(0, 0, 1),
                                    rotationRate: Vector3(0, 0, 0.5)), events: &events)
        }
    }

    @Test("a fused frame carries yaw, the quaternion and the rate, and the wire reads back the same")
    func roundTrip() throws {
        let frame = frames().last!
        let json = frame.json()
        for key in ["\"yaw\":28.", "\"quaternion\":[", "\"rotationRate\":[0.00000,0.00000,0.50000]"] {
            #expect(json.contains(key), "\(json)")
        }
        #expect(!json.contains("gyroRecovering"))
        guard case .frame(let decoded) = try Message(parsing: Array(json.utf8)) else { Issue.record("not a frame: \(json)"); return }
        #expect(Message.frame(decoded).json == json, "what is read back writes the same line")
        #expect(decoded.quaternion != nil && decoded.rotationRate == Vector3(0, 0, 0.5))
        #expect(abs(decoded.attitude!.yaw - 0.495) < 0.001, "yaw in radians after 0.99 s at 0.5 rad/s")
    }

    @Test("the rotation field can be left out, and an accelerometer's frame has none of the gyroscope's fields")
    func fields() {
        let fused = frames().last!
        #expect(!fused.json(fields: [.acc, .attitude]).contains("rotationRate"))
        #expect(fused.json(fields: [.rotation]).contains("rotationRate"))
        var pipeline = MotionPipeline()
        var events: [MotionEvent] = []
        let plain = pipeline.process(Sample(seq: 0, t: 0, counts: Counts(0, 0, 0), g: Vector3(0, 0, 1)), events: &events).json()
        for key in ["yaw", "quaternion", "rotationRate", "gyroRecovering"] { #expect(!plain.contains(key), "\(plain)") }
    }

    @Test("a client's zero makes yaw and the quaternion relative to that moment")
    func zero() {
        let all = frames()
        let message = FrameMessage(all[99], reference: all[49].attitude)
        // Half a second at 0.5 rad/s: 0.25 rad, 14.3°, about z.
        #expect(abs(message.yaw! - 0.25 * 180 / .pi) < 0.05, "yaw \(message.yaw!)°")
        #expect(abs(message.pitch!) < 1e-6 && abs(message.roll!) < 1e-6)
        let q = message.quaternion!
        #expect(abs(q.w - cos(0.125)) < 1e-3 && abs(q.z - sin(0.125)) < 1e-3 && abs(q.x) < 1e-6 && abs(q.y) < 1e-6, "\(q)")
    }
}

@Suite("The selftest reply")
struct SelfTestReplyTests {
    @Test("a six-axis part's reply carries the gyroscope's axes in dps, and reads back the same; an accelerometer's has no gyroscope field")
    func roundTrip() throws {
        let accelerometer = [Axis.x, .y, .z].map { SelfTestReply.AxisResult(axis: $0, delta: 14_000, min: 820, max: 27_869, passed: true, diagnosis: "within limits") }
        let gyroscope = SelfTestReply.Gyroscope(passed: false, range: 2000, axes: [Axis.x, .y, .z].map {
            SelfTestReply.AxisResult(axis: $0, delta: $0 == .y ? 100 : 425, min: 150, max: 700, passed: $0 != .y, diagnosis: $0 == .y ? "moved too little" : "within limits")
        })
        let message = Message.selftest(SelfTestReply(passed: false, range: 2, mode: "high-performance", axes: accelerometer, gyroscope: gyroscope))
        #expect(message.json.contains(#""gyroscope":{"passed":false,"range":2000,"axes":[{"axis":"x","delta":425.0"#), "\(message.json)")
        #expect(try Message(parsing: Array(message.json.utf8)) == message)
        let plain = Message.selftest(SelfTestReply(passed: true, range: 2, mode: "normal", axes: accelerometer))
        #expect(!plain.json.contains("gyroscope"))
        #expect(try Message(parsing: Array(plain.json.utf8)) == plain)
    }
}
