// SPDX-License-Identifier: Apache-2.0
import AccelCore
import AccelMotion

/// What clients are told about the device: in `hello`, `status` and the
/// `device` messages (which alone carry an `event`).
public struct DeviceInfo: Sendable, Equatable {
    /// The part (LIS302DL, LIS3DH, ...).
    public var chip: String
    public var location: String
    public var range: Int
    public var rate: Int
    public var mode: String
    /// Output bits per axis in `mode`.
    public var resolution: Int
    /// The FIFO watermark in samples (0: read sample by sample); nil on
    /// parts without a FIFO.
    public var fifo: Int?
    /// The gyroscope's full scale, ±dps, on parts that have one (Core
    /// Motion's isGyroAvailable); nil without.
    public var gyroscope: Int?
    public var state: String
    public var message: String?
    /// In pushed `device` messages: what happened (docs/PROTOCOL.md).
    public var event: String?
    /// With `--simulate TRACE`: the trace the chip model plays, and where
    /// its time 0 lies on the clock of every `t`.
    public var trace: TraceInfo?

    public init(chip: String, location: String, range: Int, rate: Int, mode: String, resolution: Int,
                fifo: Int? = nil, gyroscope: Int? = nil, state: String = "ok", message: String? = nil, event: String? = nil) {
        self.chip = chip
        self.location = location
        self.range = range
        self.rate = rate
        self.mode = mode
        self.resolution = resolution
        self.fifo = fifo
        self.gyroscope = gyroscope
        self.state = state
        self.message = message
        self.event = event
    }

    init(_ f: MessageFields) throws(MessageError) {
        self.init(chip: try f.string("chip"), location: try f.string("location"), range: try f.int("range"),
                  rate: try f.int("rate"), mode: try f.string("mode"), resolution: try f.int("resolution"),
                  fifo: try f.optionalInt("fifo"), gyroscope: try f.optionalInt("gyroscope"), state: try f.string("state"), message: try f.optionalString("message"),
                  event: try f.optionalString("event"))
        trace = try f.optional("trace", "an object with name, start, seconds and loop") { value in
            value.object.flatMap { object in
                guard let name = object["name"]?.string, let start = object["start"]?.number,
                      let seconds = object["seconds"]?.number, let loop = object["loop"]?.bool else { return nil }
                return TraceInfo(name: name, start: start, seconds: seconds, loop: loop)
            }
        }
    }

    func encode(_ line: inout JSONLine) {
        line.add("chip", chip)
        line.add("location", location)
        line.add("range", range)
        line.add("rate", rate)
        line.add("mode", mode)
        line.add("resolution", resolution)
        if let fifo { line.add("fifo", fifo) }
        if let gyroscope { line.add("gyroscope", gyroscope) }
        line.add("state", state)
        if let message { line.add("message", message) }
        if let event { line.add("event", event) }
        if let trace {
            var object = JSONLine()
            object.add("name", trace.name)
            object.add("start", trace.start, decimals: 6)
            object.add("seconds", trace.seconds, decimals: 6)
            object.add("loop", trace.loop)
            line.addRaw("trace", String(decoding: object.finished(), as: UTF8.self))
        }
    }

    var nested: String {
        var line = JSONLine()
        encode(&line)
        return line.line
    }
}

/// The trace a simulated chip plays: its time 0 is `start` on the clock
/// of every `t` (CLOCK_MONOTONIC, s); it lasts `seconds`, then holds its
/// last row or, with `loop`, plays again from its start.
public struct TraceInfo: Sendable, Equatable {
    public var name: String
    public var start: Double
    public var seconds: Double
    public var loop: Bool

    public init(name: String, start: Double, seconds: Double, loop: Bool) {
        self.name = name
        self.start = start
        self.seconds = seconds
        self.loop = loop
    }
}

/// The sampler's counters, as `status` reports them (docs/PROTOCOL.md).
public struct SamplerCounters: Sendable, Equatable {
    public var published = 0
    /// Reads that found no new sample (ZYXDA = 0).
    public var emptyReads = 0
    /// Reads with ZYXOR set.
    public var overruns = 0
    /// Periods skipped in the sequence.
    public var lost = 0
    public var busErrors = 0
    /// Returns from a lost device.
    public var recoveries = 0
    /// Times the chip was found reset and configured again.
    public var reconfigurations = 0
    /// Times the sampler woke to read the chip: about one per sample
    /// read one by one, one per watermark with the FIFO.
    public var wakes = 0
    /// Reads whose data-ready bit the chip's own clock rules out (set
    /// sooner than the next sample can have been made): not published.
    public var impossibleReady = 0
    /// Times reads kept finding samples overwritten and the sampler
    /// acquired the chip's phase again.
    public var reacquisitions = 0
    /// Reads after a gap that the reads around them could not place (the
    /// sampler's thread preempted for periods, twice running): numbered
    /// by the middle of the samples they can hold, within the gap.
    public var guessedNumbers = 0
    /// Times acceld handed the watching to the chip's wake-up unit and
    /// stopped reading ([power] wake-on-motion), and times it took it back.
    public var sleeps = 0
    public var wakeUps = 0

    public init() {}

    static var keys: [(StaticString, WritableKeyPath<SamplerCounters, Int>)] { [
        ("published", \.published), ("emptyReads", \.emptyReads), ("overruns", \.overruns), ("lost", \.lost),
        ("busErrors", \.busErrors), ("recoveries", \.recoveries), ("reconfigurations", \.reconfigurations),
        ("wakes", \.wakes), ("impossibleReady", \.impossibleReady), ("reacquisitions", \.reacquisitions),
        ("guessedNumbers", \.guessedNumbers),
        ("sleeps", \.sleeps), ("wakeUps", \.wakeUps),
    ] }
}

public struct Hello: Sendable, Equatable {
    public var protocolVersion: Int
    public var version: String
    public var device: DeviceInfo
    public init(protocolVersion: Int = AccelProtocol.protocolVersion, version: String = acceldVersion, device: DeviceInfo) {
        self.protocolVersion = protocolVersion
        self.version = version
        self.device = device
    }
}

/// The reply to `watch` and `unwatch`: what this client now gets.
public struct WatchReply: Sendable, Equatable {
    public var streams: Set<StreamName>
    /// The true frame rate: the chip's divided by a whole number.
    public var rate: Double?
    public var fields: FrameFields?
    public var latency: Double?
    /// The orientation decided so far, when `orientation` is watched.
    public var orientation: DeviceOrientation?
    /// The windows `vibration` messages will have, when it is watched.
    public var vibration: VibrationWatch?
    public init(streams: Set<StreamName>, rate: Double? = nil, fields: FrameFields? = nil, latency: Double? = nil,
                orientation: DeviceOrientation? = nil, vibration: VibrationWatch? = nil) {
        self.streams = streams
        self.rate = rate
        self.fields = fields
        self.latency = latency
        self.orientation = orientation
        self.vibration = vibration
    }
}

public struct StatusReport: Sendable, Equatable {
    /// Seconds since the daemon started.
    public var uptime: Double
    public var clients: Int
    public var counters: SamplerCounters
    public var device: DeviceInfo
    public init(uptime: Double, clients: Int, counters: SamplerCounters, device: DeviceInfo) {
        self.uptime = uptime
        self.clients = clients
        self.counters = counters
        self.device = device
    }
}

public struct CalibrationReply: Sendable, Equatable {
    public var calibration: Calibration
    /// Where the daemon saved it.
    public var file: String
    public init(calibration: Calibration, file: String) {
        self.calibration = calibration
        self.file = file
    }
}

/// Every message the daemon sends (docs/PROTOCOL.md), as a type that
/// encodes (the daemon, replay) and decodes (the clients).
public enum Message: Sendable, Equatable {
    case hello(Hello)
    case watch(WatchReply)
    case frame(FrameMessage)
    case event(MotionEvent)
    /// One window's vibration analysis (docs/VIBRATION.md).
    case vibration(VibrationMessage)
    /// The machine's state changed.
    case machine(MachineMessage)
    case device(DeviceInfo)
    case status(StatusReport)
    case calibration(CalibrationReply)
    case learned(LearnedMessage)
    case selftest(SelfTestReply)
    /// The reference attitude now in effect for this client, degrees.
    case zero(pitch: Double, roll: Double)
    /// The latest frame; nil before the first sample.
    case poll(FrameMessage?)
    /// Tunables applied by `configure` (as written in the configuration file).
    case configured(tunables: [String: String])
    /// Messages this client missed because it read too slowly.
    case dropped(count: Int, total: Int)
    case goodbye(reason: String)
    case error(ProtocolError)
    /// A class this version does not know (a newer daemon): kept, never fatal.
    case unknown(className: String, fields: JSONObject)

    public var className: String {
        switch self {
        case .hello: "hello"
        case .watch: "watch"
        case .frame: "frame"
        case .event(let event): event.className
        case .vibration: "vibration"
        case .machine: "machine"
        case .device: "device"
        case .status: "status"
        case .calibration: "calibration"
        case .learned: "learned"
        case .selftest: "selftest"
        case .zero: "zero"
        case .poll: "poll"
        case .configured: "configured"
        case .dropped: "dropped"
        case .goodbye: "goodbye"
        case .error: "error"
        case .unknown(let name, _): name
        }
    }

    /// Every class this version reads and writes.
    public static let classNames = ["hello", "watch", "frame", "device", "status", "calibration", "learned", "selftest", "zero",
                                    "poll", "configured", "dropped", "goodbye", "error", "vibration", "machine"] + MotionEvent.classNames

    /// The message as one line of bytes, without the newline.
    public var jsonBytes: [UInt8] {
        if case .frame(let frame) = self { return frame.jsonBytes }
        var line = JSONLine(class: className)
        switch self {
        case .hello(let hello):
            line.add("protocol", hello.protocolVersion)
            line.add("version", hello.version)
            line.addRaw("device", hello.device.nested)
        case .watch(let reply):
            line.addRaw("streams", JSONLine.array(reply.streams.map(\.rawValue).sorted()))
            if let rate = reply.rate { line.add("rate", rate, decimals: 3) }
            if let fields = reply.fields { line.addRaw("fields", JSONLine.array(fields.wireNames)) }
            if let latency = reply.latency { line.add("latency", latency, decimals: 1) }
            if let orientation = reply.orientation { line.add("orientation", orientation.rawValue) }
            if let vibration = reply.vibration { line.addRaw("vibration", vibration.json) }
        case .frame: break
        case .event(let event): event.encode(&line)
        case .vibration(let message): message.encode(&line)
        case .machine(let message): message.encode(&line)
        case .device(let device): device.encode(&line)
        case .status(let status):
            line.add("uptime", status.uptime, decimals: 3)
            line.add("clients", status.clients)
            var counters = JSONLine()
            for (name, path) in SamplerCounters.keys { counters.add(name, status.counters[keyPath: path]) }
            line.addRaw("counters", counters.line)
            line.addRaw("device", status.device.nested)
        case .calibration(let reply):
            line.add("offset", reply.calibration.offset, decimals: 4)
            line.add("scale", reply.calibration.scale, decimals: 4)
            line.add("file", reply.file)
        case .learned(let message): message.encode(&line)
        case .selftest(let report):
            line.add("passed", report.passed)
            line.add("range", report.range)
            line.add("mode", report.mode)
            line.addRaw("axes", Self.encode(report.axes))
            if let gyroscope = report.gyroscope {
                var g = JSONLine()
                g.add("passed", gyroscope.passed)
                g.add("range", gyroscope.range)
                g.addRaw("axes", Self.encode(gyroscope.axes))
                line.addRaw("gyroscope", g.line)
            }
        case .zero(let pitch, let roll):
            line.add("pitch", pitch, decimals: Decimals.angle)
            line.add("roll", roll, decimals: Decimals.angle)
        case .poll(let frame):
            line.addRaw("frame", frame.map { String(decoding: $0.jsonBytes, as: UTF8.self) } ?? "null")
        case .configured(let tunables):
            line.addRaw("tunables", "{" + tunables.sorted { $0.key < $1.key }
                .map { JSONLine.quoted($0.key) + ":" + JSONLine.quoted($0.value) }.joined(separator: ",") + "}")
        case .dropped(let count, let total):
            line.add("count", count)
            line.add("total", total)
        case .goodbye(let reason):
            line.add("reason", reason)
        case .error(let error):
            error.encode(&line)
        case .unknown(_, let fields):
            for (key, value) in fields.sorted(by: { $0.key < $1.key }) where key != "class" {
                line.addRaw(key: key, value.jsonText)
            }
        }
        return line.finished()
    }

    public var json: String { String(decoding: jsonBytes, as: UTF8.self) }

    /// Reads one line from the daemon. A class this version does not know
    /// becomes `.unknown`; a known class with a missing or mistyped field
    /// is an error that says which.
    public init(parsing line: some Collection<UInt8>) throws(MessageError) {
        let value: JSONValue
        do {
            value = try JSONValue(parsing: line)
        } catch {
            throw MessageError(nil, "not JSON: \(String(decoding: line.prefix(80), as: UTF8.self))")
        }
        guard let object = value.object, let name = object["class"]?.string, !name.isEmpty else {
            throw MessageError(nil, "not an object with a \"class\"")
        }
        try self.init(MessageFields(object: object, className: name))
    }

    init(_ f: MessageFields) throws(MessageError) {
        if let event = try MotionEvent(f) {
            self = .event(event)
            return
        }
        switch f.className {
        case "hello":
            self = .hello(Hello(protocolVersion: try f.int("protocol"), version: try f.string("version"),
                                device: try DeviceInfo(try f.nested("device"))))
        case "watch":
            let streams = Set(try f.strings("streams").compactMap(StreamName.init(rawValue:)))
            let fields: FrameFields? = try f.optional("fields", "an array of frame fields") { value in
                value.array.flatMap { items in try? FrameFields(wireNames: items.compactMap(\.string)) }
            }
            let orientation = try f.optionalString("orientation").map { text throws(MessageError) in
                guard let value = DeviceOrientation(rawValue: text) else { throw f.error("unknown orientation \"\(text)\"") }
                return value
            }
            let vibration = try f.optional("vibration", "an object", \.object).map { (object: JSONObject) throws(MessageError) in
                try VibrationWatch(object, error: f.error)
            }
            self = .watch(WatchReply(streams: streams, rate: try f.optionalNumber("rate"), fields: fields,
                                     latency: try f.optionalNumber("latency"), orientation: orientation, vibration: vibration))
        case "frame":
            self = .frame(try FrameMessage(f))
        case "vibration":
            self = .vibration(try VibrationMessage(f))
        case "machine":
            self = .machine(try MachineMessage(f))
        case "device":
            self = .device(try DeviceInfo(f))
        case "status":
            let c = try f.nested("counters")
            var counters = SamplerCounters()
            for (name, path) in SamplerCounters.keys {
                counters[keyPath: path] = try c.optionalInt("\(name)") ?? 0
            }
            self = .status(StatusReport(uptime: try f.number("uptime"), clients: try f.int("clients"), counters: counters,
                                        device: try DeviceInfo(try f.nested("device"))))
        case "calibration":
            self = .calibration(CalibrationReply(calibration: Calibration(offset: try f.vector("offset"), scale: try f.vector("scale")),
                                                 file: try f.string("file")))
        case "learned":
            self = .learned(try LearnedMessage(f))
        case "selftest":
            let gyroscope = try f.optional("gyroscope", "an object", \.object).map { object throws(MessageError) in
                let g = MessageFields(object: object, className: f.className)
                return SelfTestReply.Gyroscope(passed: try g.bool("passed"), range: try g.int("range"), axes: try Self.decodeAxes(g))
            }
            self = .selftest(SelfTestReply(passed: try f.bool("passed"), range: try f.int("range"), mode: try f.string("mode"),
                                           axes: try Self.decodeAxes(f), gyroscope: gyroscope))
        case "zero":
            self = .zero(pitch: try f.number("pitch"), roll: try f.number("roll"))
        case "poll":
            self = .poll(try f.optional("frame", "a frame or null", \.object).map { object throws(MessageError) in
                try FrameMessage(MessageFields(object: object, className: "frame"))
            })
        case "configured":
            let tunables = try f.required("tunables", "an object of strings") { value in
                value.object.flatMap { object in
                    let strings = object.compactMapValues(\.string)
                    return strings.count == object.count ? strings : nil
                }
            }
            self = .configured(tunables: tunables)
        case "dropped":
            self = .dropped(count: try f.int("count"), total: try f.int("total"))
        case "goodbye":
            self = .goodbye(reason: try f.string("reason"))
        case "error":
            self = .error(ProtocolError(try f.string("code"), try f.string("message"), request: try f.optionalString("request")))
        default:
            self = .unknown(className: f.className, fields: f.object)
        }
    }
}
