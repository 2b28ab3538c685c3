// SPDX-License-Identifier: Apache-2.0
import AccelCore
import AccelMotion
import AccelProtocol
import Testing
import TestSupport

/// AccelProtocol's encoders and decoders against docs/protocol.schema.json,
/// field by field: every class on each side, every example of
/// docs/PROTOCOL.md, and a message of every kind with every optional field.
@Suite("The protocol's description")
struct ProtocolSchemaTests {
    let schema: ProtocolSchema

    init() throws { schema = try ProtocolSchema() }

    @Test("it describes this version, and exactly the classes the types read and write")
    func classes() {
        #expect(schema.version == protocolVersion)
        #expect(schema.classNames(.message) == Set(Message.classNames))
        #expect(schema.classNames(.request) == Set(Request.classNames))
    }

    @Test("every example in docs/PROTOCOL.md matches it, and so does its encoding by the types")
    func documentedExamples() throws {
        var checked = 0
        for (fromClient, line) in try documentedLines() {
            if fromClient {
                // The session's unknown class is refused by the daemon, and undescribed.
                guard let request = try? Request(parsing: Array(line.utf8)) else {
                    #expect(!schema.problems(in: line, side: .request).isEmpty, "\(line)")
                    continue
                }
                #expect(schema.problems(in: line, side: .request) == [], "\(line)")
                #expect(schema.problems(in: request.json, side: .request) == [], "\(request.json)")
            } else {
                #expect(schema.problems(in: line, side: .message) == [], "\(line)")
                #expect(schema.problems(in: try Message(parsing: Array(line.utf8)).json, side: .message) == [])
            }
            checked += 1
        }
        #expect(checked >= 30)
    }

    static let device: DeviceInfo = {
        var device = DeviceInfo(chip: "LSM6DSO", location: "/dev/i2c-1 at 0x6b", range: 4, rate: 416, mode: "high-performance",
                                resolution: 16, fifo: 1, gyroscope: 2000, state: "asleep", message: "still", event: "asleep")
        device.trace = TraceInfo(name: "fall.csv", start: 3521.204118, seconds: 12.5, loop: true)
        return device
    }()
    static let frame = FrameMessage(seq: 9, t: 1.5, acceleration: Vector3(0, 0, 1), gravity: Vector3(0, 0, 1), user: .zero, pitch: 1,
                                    roll: 2, yaw: 3, quaternion: Quaternion(w: 1, x: 0, y: 0, z: 0), rotationRate: Vector3(0, 0, 0.1),
                                    gyroscopeRecovering: true)
    static let vibrationAxis = VibrationMessage.Axis(rms: 0.05, peak: 0.2, peakToPeak: 0.4, crest: 4, kurtosis: 3.1, velocity: 2.2,
                                                     dominant: [29.95, 0.07])
    static let vibration = VibrationMessage(
        t: 10, seq: 3_330, duration: 1, rate: 3_330, x: vibrationAxis, y: vibrationAxis,
        z: VibrationMessage.Axis(rms: 0.01, peak: 0.02, peakToPeak: 0.04, crest: 2, kurtosis: 1.5, velocity: 0.1, dominant: nil),
        rms: 0.07, peak: 0.3, crest: 4.2, velocity: 3.1, band: [10, 1_000], zone: "B", peaks: [[29.95, 0.1], [59.9, 0.04]],
        envelopeBand: [250, 1_500], envelopePeaks: [[107.4, 0.02]], shaft: 29.95,
        orders: [.init(name: "shaft", frequency: 29.95, amplitude: 0.1, envelope: nil), .init(name: "bpfo", frequency: 107.4, amplitude: nil, envelope: 0.02)],
        clipped: false, state: "running", spectrum: .init(step: 104, amplitudes: [0, 0.1]), envelopeSpectrum: .init(step: 47, amplitudes: [0.02]))
    static let axes = [Axis.x, .y, .z].map { SelfTestReply.AxisResult(axis: $0, delta: 10, min: 3, max: 32, passed: true, diagnosis: "within limits") }

    @Test("a message of every kind, with every optional field the types can write, matches it", arguments: [
        Message.hello(Hello(device: DeviceInfo(chip: "LIS3DH", location: "x", range: 2, rate: 100, mode: "normal", resolution: 10, fifo: 18))),
        .watch(WatchReply(streams: Set(StreamName.allCases), rate: 12.5, fields: .all, latency: 50, orientation: .faceUp)),
        .watch(WatchReply(streams: [])),
        .watch(WatchReply(streams: [.vibration, .machine], vibration: VibrationWatch(window: 2, overlap: 0.75, spectrumBins: 256, envelopeBins: 64))),
        .vibration(vibration), .machine(MachineMessage(t: 12, state: "running", from: "off")),
        .frame(frame), .frame(FrameMessage(seq: 0, t: 0)),
        .device(device),
        .status(StatusReport(uptime: 2, clients: 3, counters: SamplerCounters(), device: DeviceInfo(chip: "LIS302DL", location: "x", range: 2, rate: 100, mode: "normal", resolution: 8))),
        .calibration(CalibrationReply(calibration: Calibration(offset: .zero, scale: Vector3(1, 1, 1)), file: "/var/lib/acceld/calibration.json")),
        .selftest(SelfTestReply(passed: true, range: 2, mode: "high-performance", axes: axes, gyroscope: .init(passed: true, range: 2000, axes: axes))),
        .zero(pitch: 1, roll: 2), .poll(frame), .poll(nil),
        .configured(tunables: ["shake.threshold": "1.5", "freefall.min-seconds": "0.2"]),
        .dropped(count: 2, total: 5), .goodbye(reason: "acceld is stopping"),
        .error(ProtocolError("bad-field", "why", request: "watch")), .error(ProtocolError("bad-json", "why")),
        .event(.orientation(.init(t: 1, orientation: .portrait, previous: .faceUp))),
        .event(.shake(.started(t: 2, start: 1.75))), .event(.shake(.ended(t: 3, start: 1.75, duration: 0.5, peak: 2.5))),
        .event(.freeFall(.started(t: 4, start: 3.92))), .event(.freeFall(.confirmed(t: 4.1, start: 3.92))),
        .event(.freeFall(.withdrawn(t: 4.2, start: 3.92, duration: 0.25))), .event(.freeFall(.ended(t: 4.5, start: 3.92, duration: 0.58, height: 1.65))),
        .event(.movement(.init(t: 5, start: 4.5, duration: 0.5, direction: .init(axis: .y, positive: false), peak: 0.4))),
        .event(.tap(.init(t: 6, start: 5.5, count: 2, direction: .init(axis: .z, positive: true), peak: 2.25))),
    ])
    func everyMessage(_ message: Message) throws {
        #expect(schema.problems(in: message.json, side: .message) == [], "\(message.json)")
        if case .device = message { #expect(try Message(parsing: message.jsonBytes) == message, "reads back as written") }
        if case .event(let event) = message {
            let woken = String(decoding: event.jsonBytes(wake: "chip"), as: UTF8.self)
            #expect(schema.problems(in: woken, side: .message) == [], "\(woken)")
        }
    }

    @Test("a request of every kind matches it", arguments: everyKindOfRequest)
    func everyRequest(_ request: Request) {
        #expect(schema.problems(in: request.json, side: .request) == [], "\(request.json)")
    }

    @Test("what does not match is said field by field", arguments: [
        (#"{"class":"frame","seq":1,"t":0.5,"bogus":1}"#, #"frame: the field "bogus" is not in the description"#),
        (#"{"class":"frame","t":0.5}"#, #"frame: the required field "seq" is missing"#),
        (#"{"class":"frame","seq":1.5,"t":0.5}"#, #"frame.seq: 1.5 is not of type "integer""#),
        (#"{"class":"tap","t":1,"count":3,"direction":"+z","start":0.5,"peak":2}"#, "tap.count: 3 is not one of [1,2]"),
        (#"{"class":"status","uptime":1,"clients":0,"device":{},"counters":{"published":0}}"#, #"status.counters: the required field "lost" is missing"#),
        (#"{"class":"hello","protocol":2,"version":"0","device":{"chip":"x","location":"x","range":2,"rate":1,"mode":"m","resolution":8,"state":"ok","event":"lost"}}"#,
         #"hello.device: the field "event" is not in the description"#),
        (#"{"class":"frobnicate"}"#, #"message class "frobnicate" is not in the description"#),
    ])
    func mismatches(_ line: String, _ expected: String) {
        let problems = schema.problems(in: line, side: .message)
        #expect(problems.contains(expected), "\(problems)")
    }
}
