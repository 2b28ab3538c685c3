// SPDX-License-Identifier: Apache-2.0
import AccelCore

/// The `selftest` reply: the accelerometer's datasheet self-test axis by
/// axis, and a six-axis part's gyroscope's.
public struct SelfTestReply: Sendable, Equatable {
    public struct AxisResult: Sendable, Equatable {
        public var axis: Axis
        /// Digits.
        public var delta: Double
        public var min: Double
        public var max: Double
        public var passed: Bool
        public var diagnosis: String
        public init(axis: Axis, delta: Double, min: Double, max: Double, passed: Bool, diagnosis: String) {
            self.axis = axis
            self.delta = delta
            self.min = min
            self.max = max
            self.passed = passed
            self.diagnosis = diagnosis
        }
    }
    /// A six-axis part's gyroscope self-test: `delta`, `min` and `max` in
    /// dps, `range` in ±dps.
    public struct Gyroscope: Sendable, Equatable {
        public var passed: Bool
        public var range: Int
        public var axes: [AxisResult]
        public init(passed: Bool, range: Int, axes: [AxisResult]) {
            self.passed = passed
            self.range = range
            self.axes = axes
        }
    }
    /// The accelerometer's, and the gyroscope's where there is one.
    public var passed: Bool
    public var range: Int
    public var mode: String
    public var axes: [AxisResult]
    public var gyroscope: Gyroscope?
    public init(passed: Bool, range: Int, mode: String, axes: [AxisResult], gyroscope: Gyroscope? = nil) {
        self.passed = passed
        self.range = range
        self.mode = mode
        self.axes = axes
        self.gyroscope = gyroscope
    }
}

extension Message {
    /// A self-test's axes as a JSON array.
    static func encode(_ axes: [SelfTestReply.AxisResult]) -> String {
        "[" + axes.map { r -> String in
            var a = JSONLine()
            a.add("axis", r.axis.rawValue)
            a.add("delta", r.delta, decimals: 1)
            a.add("min", r.min, decimals: 1)
            a.add("max", r.max, decimals: 1)
            a.add("passed", r.passed)
            a.add("diagnosis", r.diagnosis)
            return a.line
        }.joined(separator: ",") + "]"
    }

    /// The `axes` array of a self-test reply (or of its `gyroscope`).
    static func decodeAxes(_ f: MessageFields) throws(MessageError) -> [SelfTestReply.AxisResult] {
        let axes = try f.required("axes", "an array of objects") { $0.array?.compactMap(\.object) }
        return try axes.map { object throws(MessageError) in
            let a = MessageFields(object: object, className: f.className)
            let name = try a.string("axis")
            guard let axis = Axis(rawValue: name) else { throw a.error("unknown axis \"\(name)\"") }
            return .init(axis: axis, delta: try a.number("delta"), min: try a.number("min"), max: try a.number("max"),
                         passed: try a.bool("passed"), diagnosis: try a.string("diagnosis"))
        }
    }
}
