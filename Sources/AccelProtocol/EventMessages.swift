// SPDX-License-Identifier: Apache-2.0
import AccelCore
import AccelMotion

/// Fields a client can ask for in frames (all by default).
public struct FrameFields: OptionSet, Sendable, Hashable {
    public let rawValue: UInt8
    public init(rawValue: UInt8) { self.rawValue = rawValue }
    public static let acc = FrameFields(rawValue: 1)
    public static let gravity = FrameFields(rawValue: 2)
    public static let user = FrameFields(rawValue: 4)
    public static let attitude = FrameFields(rawValue: 8)
    /// The gyroscope's rate (parts with one).
    public static let rotation = FrameFields(rawValue: 16)
    public static let all: FrameFields = [.acc, .gravity, .user, .attitude, .rotation]

    public static let names: [(String, FrameFields)] = [("acc", .acc), ("gravity", .gravity), ("user", .user), ("attitude", .attitude),
                                                        ("rotation", .rotation)]

    /// The wire names of these fields, in the protocol's order.
    public var wireNames: [String] { FrameFields.names.filter { contains($0.1) }.map(\.0) }

    /// From wire names; nil names the first one that is unknown.
    public init(wireNames: [String]) throws(ProtocolError) {
        self = []
        for name in wireNames {
            guard let field = FrameFields.names.first(where: { $0.0 == name })?.1 else {
                throw ProtocolError("bad-field", "unknown frame field \"\(name)\"; fields are " + FrameFields.names.map(\.0).joined(separator: ", "))
            }
            insert(field)
        }
    }
}

/// A `frame` as it travels: the fields the client asked for, pitch and roll
/// in degrees relative to its reference.
public struct FrameMessage: Sendable, Equatable {
    public var seq: UInt64
    /// Seconds on the daemon's CLOCK_MONOTONIC (trace seconds in replay).
    public var t: Double
    /// Calibrated specific force, g.
    public var acceleration: Vector3?
    /// Its low-passed part, g.
    public var gravity: Vector3?
    /// acceleration − gravity, g.
    public var user: Vector3?
    /// Degrees.
    public var pitch: Double?
    /// Degrees.
    public var roll: Double?
    /// With a gyroscope: degrees about the vertical, from the first sample's heading ...
    public var yaw: Double?
    /// ... the attitude as a quaternion (board axes into Z up) ...
    public var quaternion: Quaternion?
    /// ... the rate with its offset removed, rad/s ...
    public var rotationRate: Vector3?
    /// ... and true while the attitude recovers from a saturated gyroscope.
    public var gyroscopeRecovering: Bool

    public init(seq: UInt64, t: Double, acceleration: Vector3? = nil, gravity: Vector3? = nil, user: Vector3? = nil,
                pitch: Double? = nil, roll: Double? = nil, yaw: Double? = nil, quaternion: Quaternion? = nil,
                rotationRate: Vector3? = nil, gyroscopeRecovering: Bool = false) {
        self.seq = seq
        self.t = t
        self.acceleration = acceleration
        self.gravity = gravity
        self.user = user
        self.pitch = pitch
        self.roll = roll
        self.yaw = yaw
        self.quaternion = quaternion
        self.rotationRate = rotationRate
        self.gyroscopeRecovering = gyroscopeRecovering
    }

    /// What a client with these fields and this reference attitude is sent.
    public init(_ frame: Frame, fields: FrameFields = .all, reference: Attitude? = nil) {
        self.init(seq: frame.seq, t: frame.t)
        if fields.contains(.acc) { acceleration = frame.acceleration }
        if fields.contains(.gravity) { gravity = frame.gravity }
        if fields.contains(.user) { user = frame.user }
        if fields.contains(.attitude) {
            let shown = reference.map { frame.attitude.relative(to: $0) } ?? frame.attitude
            pitch = degrees(shown.pitch)
            roll = degrees(shown.roll)
            if frame.quaternion != nil {
                yaw = degrees(shown.yaw)
                let q = shown.quaternion
                quaternion = Quaternion(w: q.w, x: q.x, y: q.y, z: q.z)
            }
        }
        if fields.contains(.rotation) { rotationRate = frame.rotationRate }
        gyroscopeRecovering = frame.gyroscopeRecovering
    }

    /// Pitch, roll (and yaw) in radians, when they were sent.
    public var attitude: Attitude? {
        guard let pitch, let roll else { return nil }
        return Attitude(pitch: radians(pitch), roll: radians(roll), yaw: radians(yaw ?? 0))
    }

    init(_ f: MessageFields) throws(MessageError) {
        let q = try f.optionalNumbers("quaternion", count: 4)
        self.init(seq: try f.uint64("seq"), t: try f.number("t"),
                  acceleration: try f.optionalVector("acc"), gravity: try f.optionalVector("gravity"),
                  user: try f.optionalVector("user"), pitch: try f.optionalNumber("pitch"), roll: try f.optionalNumber("roll"),
                  yaw: try f.optionalNumber("yaw"), quaternion: q.map { Quaternion(w: $0[0], x: $0[1], y: $0[2], z: $0[3]) },
                  rotationRate: try f.optionalVector("rotationRate"), gyroscopeRecovering: try f.optionalBool("gyroRecovering") ?? false)
    }

    func encode(_ line: inout JSONLine) {
        line.add("seq", seq)
        line.add("t", t, decimals: Decimals.t)
        if let acceleration { line.add("acc", acceleration, decimals: Decimals.g) }
        if let gravity { line.add("gravity", gravity, decimals: Decimals.g) }
        if let user { line.add("user", user, decimals: Decimals.g) }
        if let pitch { line.add("pitch", pitch, decimals: Decimals.angle) }
        if let roll { line.add("roll", roll, decimals: Decimals.angle) }
        if let yaw { line.add("yaw", yaw, decimals: Decimals.angle) }
        if let q = quaternion { line.addRaw("quaternion", "[\(fixed(q.w, Decimals.quaternion)),\(fixed(q.x, Decimals.quaternion)),\(fixed(q.y, Decimals.quaternion)),\(fixed(q.z, Decimals.quaternion))]") }
        if let rotationRate { line.add("rotationRate", rotationRate, decimals: Decimals.rate) }
        if gyroscopeRecovering { line.add("gyroRecovering", true) }
    }

    public var jsonBytes: [UInt8] {
        var line = JSONLine(class: "frame")
        encode(&line)
        return line.finished()
    }
}

extension Frame {
    /// The `frame` message, as bytes, for the paths that send every frame.
    public func jsonBytes(fields: FrameFields = .all, reference: Attitude? = nil) -> [UInt8] {
        FrameMessage(self, fields: fields, reference: reference).jsonBytes
    }

    public func json(fields: FrameFields = .all, reference: Attitude? = nil) -> String {
        String(decoding: jsonBytes(fields: fields, reference: reference), as: UTF8.self)
    }
}

extension MotionEvent {
    public var json: String {
        var line = JSONLine(class: className)
        encode(&line)
        return line.line
    }

    /// The event's message with `"wake"`: what woke acceld before it
    /// ("chip": the chip's wake-up unit, [power] wake-on-motion).
    public func jsonBytes(wake: String) -> [UInt8] {
        var line = JSONLine(class: className)
        encode(&line)
        line.add("wake", wake)
        return line.finished()
    }

    func encode(_ line: inout JSONLine) {
        line.add("t", t, decimals: Decimals.t)
        switch self {
        case .orientation(let e):
            line.add("orientation", e.orientation.rawValue)
            line.add("previous", e.previous.rawValue)
        case .shake(.started(_, let start)):
            line.add("phase", "start")
            line.add("start", start, decimals: Decimals.t)
        case .shake(.ended(_, let start, let duration, let peak)):
            line.add("phase", "end")
            line.add("start", start, decimals: Decimals.t)
            line.add("duration", duration, decimals: Decimals.t)
            line.add("peak", peak, decimals: Decimals.g)
        case .freeFall(.started(_, let start)):
            line.add("phase", "start")
            line.add("start", start, decimals: Decimals.t)
        case .freeFall(.confirmed(_, let start)):
            line.add("phase", "confirmed")
            line.add("start", start, decimals: Decimals.t)
        case .freeFall(.withdrawn(_, let start, let duration)):
            line.add("phase", "withdrawn")
            line.add("start", start, decimals: Decimals.t)
            line.add("duration", duration, decimals: Decimals.t)
        case .freeFall(.ended(_, let start, let duration, let height)):
            line.add("phase", "end")
            line.add("start", start, decimals: Decimals.t)
            line.add("duration", duration, decimals: Decimals.t)
            line.add("height", height, decimals: Decimals.height)
        case .movement(let e):
            line.add("direction", e.direction.description)
            line.add("start", e.start, decimals: Decimals.t)
            line.add("duration", e.duration, decimals: Decimals.t)
            line.add("peak", e.peak, decimals: Decimals.g)
        case .tap(let e):
            line.add("count", e.count)
            line.add("direction", e.direction.description)
            line.add("start", e.start, decimals: Decimals.t)
            line.add("peak", e.peak, decimals: Decimals.g)
        }
    }

    /// Reads an event of class `f.className`; nil when the class is not an event's.
    init?(_ f: MessageFields) throws(MessageError) {
        guard MotionEvent.classNames.contains(f.className) else { return nil }
        let t = try f.number("t")
        func direction() throws(MessageError) -> MovementDetector.Direction {
            let text = try f.string("direction")
            guard let direction = MovementDetector.Direction(text) else { throw f.error("direction \"\(text)\" is not one of +x … -z") }
            return direction
        }
        func orientation(_ key: String) throws(MessageError) -> DeviceOrientation {
            let text = try f.string(key)
            guard let value = DeviceOrientation(rawValue: text) else { throw f.error("\"\(key)\": unknown orientation \"\(text)\"") }
            return value
        }
        func unknownPhase(_ phase: String) -> MessageError { f.error("unknown phase \"\(phase)\"") }
        switch f.className {
        case "orientation":
            self = .orientation(.init(t: t, orientation: try orientation("orientation"), previous: try orientation("previous")))
        case "shake":
            let start = try f.number("start")
            switch try f.string("phase") {
            case "start": self = .shake(.started(t: t, start: start))
            case "end": self = .shake(.ended(t: t, start: start, duration: try f.number("duration"), peak: try f.number("peak")))
            case let phase: throw unknownPhase(phase)
            }
        case "freefall":
            let start = try f.number("start")
            switch try f.string("phase") {
            case "start": self = .freeFall(.started(t: t, start: start))
            case "confirmed": self = .freeFall(.confirmed(t: t, start: start))
            case "withdrawn": self = .freeFall(.withdrawn(t: t, start: start, duration: try f.number("duration")))
            case "end": self = .freeFall(.ended(t: t, start: start, duration: try f.number("duration"), height: try f.number("height")))
            case let phase: throw unknownPhase(phase)
            }
        case "movement":
            self = .movement(.init(t: t, start: try f.number("start"), duration: try f.number("duration"),
                                   direction: try direction(), peak: try f.number("peak")))
        case "tap":
            self = .tap(.init(t: t, start: try f.number("start"), count: try f.int("count"), direction: try direction(), peak: try f.number("peak")))
        default:
            return nil
        }
    }
}
