// SPDX-License-Identifier: Apache-2.0
import AccelDriver
import AccelMotion

/// The protocol version clients see in `hello`. Bump on incompatible change.
public let protocolVersion = 1

/// Decimals on the wire: 0.1 mg for g (the finest part of the family
/// resolves 1 mg), 1 µs for time, 0.01° for angles, 1 mm for heights.
enum Decimals {
    static let g = 4
    static let t = 6
    static let angle = 2
    static let height = 3
}

/// Fields a client can ask for in frames (all by default).
public struct FrameFields: OptionSet, Sendable, Hashable {
    public let rawValue: UInt8
    public init(rawValue: UInt8) { self.rawValue = rawValue }
    public static let acc = FrameFields(rawValue: 1)
    public static let gravity = FrameFields(rawValue: 2)
    public static let user = FrameFields(rawValue: 4)
    public static let attitude = FrameFields(rawValue: 8)
    public static let all: FrameFields = [.acc, .gravity, .user, .attitude]

    public static let names: [(String, FrameFields)] = [("acc", .acc), ("gravity", .gravity), ("user", .user), ("attitude", .attitude)]
}

extension Frame {
    /// `{"class":"frame","seq":…,"t":…,"acc":[…],"gravity":[…],"user":[…],"pitch":…,"roll":…}`
    /// Pitch and roll in degrees, relative to `reference` when a client has set one.
    public func json(fields: FrameFields = .all, reference: Attitude? = nil) -> String {
        String(decoding: jsonBytes(fields: fields, reference: reference), as: UTF8.self)
    }

    /// The same message as bytes, for the paths that send every frame.
    public func jsonBytes(fields: FrameFields = .all, reference: Attitude? = nil) -> [UInt8] {
        var line = JSONLine(class: "frame")
        line.add("seq", seq)
        line.add("t", t, decimals: Decimals.t)
        if fields.contains(.acc) { line.add("acc", acceleration, decimals: Decimals.g) }
        if fields.contains(.gravity) { line.add("gravity", gravity, decimals: Decimals.g) }
        if fields.contains(.user) { line.add("user", user, decimals: Decimals.g) }
        if fields.contains(.attitude) {
            let shown = reference.map { attitude.relative(to: $0) } ?? attitude
            line.add("pitch", degrees(shown.pitch), decimals: Decimals.angle)
            line.add("roll", degrees(shown.roll), decimals: Decimals.angle)
        }
        return line.finished()
    }
}

extension MotionEvent {
    public var json: String {
        var line = JSONLine(class: className)
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
        return line.line
    }
}

func degrees(_ radians: Double) -> Double { radians * 180 / .pi }
