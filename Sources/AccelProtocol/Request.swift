// SPDX-License-Identifier: Apache-2.0
import AccelCore

/// A stream a client can watch.
public enum StreamName: String, Sendable, CaseIterable {
    case frames, orientation, shake, freefall, movement, device, status
    /// Taps and double taps (issue #14).
    case tap
    /// A message per window of vibration analysis, and the machine's
    /// changes of state (docs/VIBRATION.md). Neither is in a watch that
    /// names no streams: the analysis costs the daemon work.
    case vibration, machine

    public static let events: Set<StreamName> = [.orientation, .shake, .freefall, .movement, .tap]

    /// What a watch without `streams` watches: all but `status` and the
    /// vibration analysis's.
    public static let byDefault = Set(StreamName.allCases).subtracting([.status, .vibration, .machine])

    /// Stream names as a client writes them; "events" stands for the five
    /// event streams.
    public static func parse(_ names: [String]) throws(ProtocolError) -> Set<StreamName> {
        var streams = Set<StreamName>()
        for name in names {
            if name == "events" {
                streams.formUnion(StreamName.events)
            } else if let stream = StreamName(rawValue: name) {
                streams.insert(stream)
            } else {
                throw ProtocolError("bad-field", "unknown stream \"\(name)\"; streams are " + (StreamName.allCases.map(\.rawValue) + ["events"]).joined(separator: ", "))
            }
        }
        return streams
    }
}

/// A client's request, parsed and checked. docs/PROTOCOL.md lists them.
public enum Request: Sendable, Equatable {
    /// Start (or change) a subscription. `rate` in Hz for frames, served by
    /// decimation; `latency` in ms, how late frames may arrive (batched
    /// from the chip's FIFO, Android's maximum report latency).
    /// `vibration`: the windows of this client's `vibration` messages.
    case watch(streams: Set<StreamName>, rate: Double?, fields: FrameFields, latency: Double?, vibration: VibrationWatch? = nil)
    /// Stop some streams, or all (nil).
    case unwatch(streams: Set<StreamName>?)
    /// The latest frame, for pull-style clients.
    case poll
    case status
    case device
    /// Privileged: change range and/or rate, and/or pipeline tunables
    /// named as in the configuration file ("shake.threshold": "1.5").
    case configure(range: Int?, rate: Int?, mode: String?, tunables: [String: String])
    /// Privileged: measure the offset with the board flat and still (+Z up).
    case calibrateFlat(seconds: Double)
    /// Privileged: set a calibration computed elsewhere (accelctl's six-position).
    case calibrateSet(Calibration)
    /// Privileged: back to no correction.
    case calibrateReset
    /// This client's reference attitude: here (or cleared).
    case zero(reset: Bool)
    /// Privileged: the datasheet self-test.
    case selftest
    /// Privileged: learn the machine's level at rest over `seconds`, and
    /// the idle threshold from it (docs/VIBRATION.md).
    case learn(seconds: Double)

    public var className: String {
        switch self {
        case .watch: "watch"
        case .unwatch: "unwatch"
        case .poll: "poll"
        case .status: "status"
        case .device: "device"
        case .configure: "configure"
        case .calibrateFlat, .calibrateSet, .calibrateReset: "calibrate"
        case .zero: "zero"
        case .selftest: "selftest"
        case .learn: "learn"
        }
    }

    /// True for requests that change the device: checked against SO_PEERCRED.
    public var isPrivileged: Bool {
        switch self {
        case .configure, .calibrateFlat, .calibrateSet, .calibrateReset, .selftest, .learn: true
        default: false
        }
    }

    public static let classNames = ["watch", "subscribe", "unwatch", "unsubscribe", "poll", "status", "device",
                                    "configure", "calibrate", "zero", "selftest", "learn"]
}

extension Request {
    /// The request as one line (without the newline), as a client sends it.
    public var json: String {
        var line = JSONLine(class: className)
        switch self {
        case .watch(let streams, let rate, let fields, let latency, let vibration):
            line.addRaw("streams", JSONLine.array(streams.map(\.rawValue).sorted()))
            if let rate { line.add("rate", number: rate) }
            if fields != .all { line.addRaw("fields", JSONLine.array(fields.wireNames)) }
            if let latency { line.add("latency", number: latency) }
            if let vibration { line.addRaw("vibration", vibration.json) }
        case .unwatch(let streams):
            if let streams { line.addRaw("streams", JSONLine.array(streams.map(\.rawValue).sorted())) }
        case .poll, .status, .device, .selftest:
            break
        case .configure(let range, let rate, let mode, let tunables):
            if let range { line.add("range", range) }
            if let rate { line.add("rate", rate) }
            if let mode { line.add("mode", mode) }
            if !tunables.isEmpty {
                line.addRaw("tunables", "{" + tunables.sorted { $0.key < $1.key }
                    .map { JSONLine.quoted($0.key) + ":" + JSONLine.quoted($0.value) }.joined(separator: ",") + "}")
            }
        case .calibrateFlat(let seconds):
            line.add("seconds", number: seconds)
        case .calibrateSet(let calibration):
            line.add("offset", numbers: calibration.offset)
            line.add("scale", numbers: calibration.scale)
        case .calibrateReset:
            line.add("reset", true)
        case .zero(let reset):
            if reset { line.add("reset", true) }
        case .learn(let seconds):
            line.add("seconds", number: seconds)
        }
        return line.line
    }
}

/// Why a request was refused: a stable code for programs, a sentence for people.
public struct ProtocolError: Error, Equatable, Sendable {
    public let code: String
    public let message: String
    public var request: String?

    public init(_ code: String, _ message: String, request: String? = nil) {
        self.code = code
        self.message = message
        self.request = request
    }

    public var json: String { Message.error(self).json }

    func encode(_ line: inout JSONLine) {
        line.add("code", code)
        line.add("message", message)
        if let request { line.add("request", request) }
    }
}

extension Request {
    /// Parses one request line (UTF-8 JSON object with a `class`).
    public init(parsing line: some Collection<UInt8>) throws(ProtocolError) {
        let object: JSONValue
        do {
            object = try JSONValue(parsing: line)
        } catch {
            throw ProtocolError("bad-json", "the request is not valid JSON; send one JSON object per line, e.g. {\"class\":\"watch\",\"streams\":[\"frames\"]}")
        }
        guard let fields = object.object else {
            throw ProtocolError("not-an-object", "a request is a JSON object with a \"class\", e.g. {\"class\":\"status\"}")
        }
        guard let name = fields["class"]?.string else {
            throw ProtocolError("no-class", "the request has no \"class\" string; known classes: \(Request.classNames.joined(separator: ", "))")
        }
        let reader = FieldReader(fields: fields, request: name)
        switch name {
        case "watch", "subscribe":
            let streams = try reader.streams() ?? StreamName.byDefault
            var frameFields = FrameFields.all
            if let names = try reader.strings("fields") {
                do {
                    frameFields = try FrameFields(wireNames: names)
                } catch {
                    throw reader.error(error.message)
                }
            }
            let rate = try reader.number("rate", within: 0.001...10_000)
            let latency = try reader.number("latency", within: 0...10_000)
            var vibration: VibrationWatch?
            if let raw = fields["vibration"] {
                guard let object = raw.object else { throw reader.error("\"vibration\" must be an object such as {\"window\":1,\"overlap\":0.5}") }
                vibration = try VibrationWatch(object, error: reader.error)
            }
            self = .watch(streams: streams, rate: rate, fields: frameFields, latency: latency, vibration: vibration)
        case "unwatch", "unsubscribe":
            self = .unwatch(streams: try reader.streams())
        case "poll": self = .poll
        case "status": self = .status
        case "device": self = .device
        case "configure":
            let range = try reader.number("range", within: 1...64).map { Int($0) }
            let rate = try reader.number("rate", within: 1...10_000).map { Int($0) }
            let mode = try reader.string("mode")
            var tunables: [String: String] = [:]
            if let raw = fields["tunables"] {
                guard let object = raw.object else {
                    throw reader.error("\"tunables\" must be an object such as {\"shake.threshold\":1.5}")
                }
                for (key, value) in object {
                    switch value {
                    // As written in a configuration file: 2, not 2.0.
                    case .number: tunables[key] = value.description
                    case .string(let text): tunables[key] = text
                    default: throw reader.error("tunable \"\(key)\" must be a number or a string")
                    }
                }
            }
            guard range != nil || rate != nil || mode != nil || !tunables.isEmpty else {
                throw reader.error("say what to change: \"range\" (g), \"rate\" (Hz), \"mode\" and/or \"tunables\", e.g. {\"class\":\"configure\",\"range\":8}")
            }
            self = .configure(range: range, rate: rate, mode: mode, tunables: tunables)
        case "calibrate":
            if try reader.bool("reset") == true {
                self = .calibrateReset
            } else if fields["offset"] != nil || fields["scale"] != nil {
                let offset = try reader.vector("offset") ?? .zero
                let scale = try reader.vector("scale") ?? Vector3(1, 1, 1)
                guard [scale.x, scale.y, scale.z].allSatisfy({ $0 > 0.5 && $0 < 2 }) else {
                    throw reader.error("\"scale\" factors must lie between 0.5 and 2")
                }
                guard offset.magnitude < 1 else { throw reader.error("an \"offset\" of \(fixed(offset.magnitude, 3)) g is not plausible (at most 1 g)") }
                self = .calibrateSet(Calibration(offset: offset, scale: scale))
            } else {
                self = .calibrateFlat(seconds: try reader.number("seconds", within: 0.1...60) ?? 2)
            }
        case "zero": self = .zero(reset: try reader.bool("reset") ?? false)
        case "selftest": self = .selftest
        case "learn": self = .learn(seconds: try reader.number("seconds", within: 2...600) ?? 60)
        default:
            throw ProtocolError("unknown-class", "unknown request class \"\(name)\"; known classes: \(Request.classNames.joined(separator: ", "))", request: name)
        }
    }
}

/// Typed access to a request's fields, with errors that name the field.
private struct FieldReader {
    let fields: [String: JSONValue]
    let request: String

    func error(_ message: String) -> ProtocolError { ProtocolError("bad-field", message, request: request) }

    func number(_ key: String, within allowed: ClosedRange<Double>) throws(ProtocolError) -> Double? {
        guard let raw = fields[key] else { return nil }
        guard let value = raw.number else {
            throw error("\"\(key)\" must be a number")
        }
        guard allowed.contains(value) else { throw error("\"\(key)\" must lie between \(allowed.lowerBound) and \(allowed.upperBound)") }
        return value
    }

    func bool(_ key: String) throws(ProtocolError) -> Bool? {
        guard let raw = fields[key] else { return nil }
        guard let value = raw.bool else { throw error("\"\(key)\" must be true or false, not \(raw.jsonText)") }
        return value
    }

    func string(_ key: String) throws(ProtocolError) -> String? {
        guard let raw = fields[key] else { return nil }
        guard let value = raw.string else { throw error("\"\(key)\" must be a string") }
        return value
    }

    func strings(_ key: String) throws(ProtocolError) -> [String]? {
        guard let raw = fields[key] else { return nil }
        guard let values = raw.array, case let strings = values.compactMap(\.string), strings.count == values.count else {
            throw error("\"\(key)\" must be an array of strings")
        }
        return strings
    }

    func streams() throws(ProtocolError) -> Set<StreamName>? {
        guard let names = try strings("streams") else { return nil }
        do {
            return try StreamName.parse(names)
        } catch {
            throw self.error(error.message)
        }
    }

    func vector(_ key: String) throws(ProtocolError) -> Vector3? {
        guard let raw = fields[key] else { return nil }
        guard let numbers = raw.numbers(count: 3) else { throw error("\"\(key)\" must be an array of three numbers [x, y, z]") }
        return Vector3(numbers[0], numbers[1], numbers[2])
    }
}
