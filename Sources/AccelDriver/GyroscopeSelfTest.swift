// SPDX-License-Identifier: Apache-2.0
import AccelCore
import AccelParts
// A six-axis part's gyroscope self-test, as ST's lsm6dso_self_test.c runs
// it (STMems_Standard_C_drivers): 208 Hz at ±2000 dps, wait 100 ms,
// discard one sample, average five; ST_G positive, wait, discard, average
// five; ST_G off. The change per axis must lie within the published
// 150 to 700 dps whatever its sign.

/// The outcome of the gyroscope's self-test, axis by axis, in dps.
public struct GyroscopeSelfTestReport: Sendable, Equatable {
    public struct AxisResult: Sendable, Equatable {
        public let axis: Axis
        /// Average rate without and with the self-test, dps.
        public let normal: Double
        public let selfTest: Double
        public var change: Double { selfTest - normal }
        public let limits: ClosedRange<Double>
        public var passed: Bool { limits.contains(abs(change)) }

        /// Why an axis usually fails this way, for a person at the bench.
        public var diagnosis: String {
            if passed { return "within limits" }
            if abs(change) < 1 {
                return "did not move: the axis is stuck (damaged MEMS, or a chip that ignores ST_G, i.e. not the part named)"
            }
            if abs(change) < limits.lowerBound {
                return "moved too little: the part is out of specification, or it was turned during the test"
            }
            return "moved too far: keep the board still during the test; if it repeats, the part is out of specification"
        }
    }

    public let part: String
    /// The range the limits were published for, ±dps.
    public let range: Int
    public let axes: [AxisResult]

    public init(part: String, range: Int, axes: [AxisResult]) {
        self.part = part
        self.range = range
        self.axes = axes
    }

    public var passed: Bool { axes.allSatisfy(\.passed) }

    public var summary: String {
        let lines = axes.map { r in
            "\(r.axis.rawValue.uppercased()): \(r.passed ? "PASS" : "FAIL") change \(format(r.change)) dps (limits |change| \(format(r.limits.lowerBound))..\(format(r.limits.upperBound)) dps): \(r.diagnosis)"
        }
        return "\(part) gyroscope self-test at ±\(range) dps: \(passed ? "PASS" : "FAIL")\n" + lines.joined(separator: "\n")
    }

    private func format(_ v: Double) -> String { String((v * 10).rounded() / 10) }
}

extension Accelerometer {
    /// ST's rate for the gyroscope's self-test.
    static let gyroscopeSelfTestRate = 208

    /// Runs the gyroscope's self-test (see the top of this file). The chip
    /// is left configured as before, or as the test left it.
    public func gyroscopeSelfTest(samplesPerPhase: Int = 5) throws -> GyroscopeSelfTestReport {
        guard let gyroscope = profile.gyroscope else { throw DriverError.noSelfTest(part: profile.name + "'s gyroscope") }
        // The driver runs the gyroscope at its first (widest) range; the
        // limits are published for that range on every part of the family.
        precondition(gyroscope.ranges[0].dps == gyroscope.selfTestRange, "the gyroscope's self-test range must be its first")
        let previous = configuration
        let rates = profile.modes[0].rates.map(\.hertz)
        let rate = rates.contains(Self.gyroscopeSelfTestRate) ? Self.gyroscopeSelfTestRate : rates.last!
        let conditions = DeviceConfiguration(range: profile.ranges[0].fullScale, rate: rate, mode: profile.modes[0].name)
        try configure(conditions)
        let field = gyroscope.selfTestField
        let control = try registerValues(for: conditions).first { $0.register == field.register }!.value
        // ST waits 100 ms after each change: here as the samples in it,
        // which also keeps the wait on the driver's clock.
        let settleSamples = (Double(rate) * 0.1).rounded(.up)
        let dpsPerDigit = gyroscope.ranges[0].dpsPerDigit

        func average() throws -> Vector3 {
            for _ in 0..<Int(settleSamples) { _ = try nextReading() }
            _ = try nextReading()  // discard: it may straddle the change
            var sum = Vector3.zero
            for _ in 0..<samplesPerPhase { sum += (try nextReading().rotation ?? Counts(0, 0, 0)).vector }
            return sum / Double(samplesPerPhase) * dpsPerDigit
        }

        let normal = try average()
        try bus.writeRegister(field.register, field.set(gyroscope.selfTestCode, in: control))
        let deflected: Vector3
        do { deflected = try average() } catch {
            try? bus.writeRegister(field.register, control)
            throw error
        }
        try bus.writeRegister(field.register, control)
        for _ in 0..<Int(settleSamples) { _ = try nextReading() }
        if let previous { try configure(previous) }

        let axes = Axis.allCases.map {
            GyroscopeSelfTestReport.AxisResult(axis: $0, normal: normal[$0], selfTest: deflected[$0], limits: gyroscope.selfTestLimits)
        }
        return GyroscopeSelfTestReport(part: profile.name, range: gyroscope.selfTestRange, axes: axes)
    }
}
