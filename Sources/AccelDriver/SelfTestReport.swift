// SPDX-License-Identifier: Apache-2.0
import AccelCore
/// The outcome of the datasheet self-test, axis by axis, in raw digits.
public struct SelfTestReport: Sendable, Equatable {
    public struct AxisResult: Sendable, Equatable {
        public let axis: Axis
        /// Average output without and with the self-test force, in digits.
        public let normal: Double
        public let selfTest: Double
        public let delta: Double
        public let limits: ClosedRange<Double>
        /// The limits bound the size of the change, whatever its sign.
        public let magnitudeOnly: Bool
        public var passed: Bool { limits.contains(magnitudeOnly ? abs(delta) : delta) }

        /// Why an axis usually fails this way, for a person at the bench.
        public var diagnosis: String {
            if passed { return "within limits" }
            let expectedSign = limits.lowerBound < 0 ? -1.0 : 1.0
            if abs(delta) < 1 {
                return "did not move: the axis is stuck (damaged MEMS, or a chip that ignores the self-test bits, i.e. not the part named)"
            }
            if !magnitudeOnly && delta * expectedSign < 0 {
                return "moved the wrong way: the chip may be a relative with the opposite self-test sign, or STM was set instead of STP"
            }
            if abs(delta) < min(abs(limits.lowerBound), abs(limits.upperBound)) {
                return "moved too little: the part is out of specification, or it was shaken during the test"
            }
            return "moved too far: keep the board still during the test; if it repeats, the part is out of specification"
        }
    }

    public let part: String
    public let range: Int
    /// The power mode the limits were published for (and the test ran in).
    public let mode: String
    public let axes: [AxisResult]

    public init(part: String, range: Int, mode: String, axes: [AxisResult]) {
        self.part = part
        self.range = range
        self.mode = mode
        self.axes = axes
    }

    public var passed: Bool { axes.allSatisfy(\.passed) }

    public var summary: String {
        let lines = axes.map { r in
            "\(r.axis.rawValue.uppercased()): \(r.passed ? "PASS" : "FAIL") delta \(format(r.delta)) digits (limits \(r.magnitudeOnly ? "|delta| " : "")\(format(r.limits.lowerBound))..\(format(r.limits.upperBound))): \(r.diagnosis)"
        }
        let verdict = passed ? "PASS" : "FAIL"
        return "\(part) self-test at ±\(range) g, \(mode) mode: \(verdict)\n" + lines.joined(separator: "\n")
    }

    private func format(_ v: Double) -> String { String((v * 10).rounded() / 10) }
}
