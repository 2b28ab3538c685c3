// SPDX-License-Identifier: Apache-2.0
import AccelCore
import AccelParts

// What a bring-up asks of the chip besides samples: reload its trim,
// power it down, and run the datasheet self-test.
extension Accelerometer {
    /// Reloads the factory trim (BOOT) and waits for the bit to clear.
    public func boot() throws {
        let field = profile.bootField
        let current = try bus.readRegister(field.register)
        try bus.writeRegister(field.register, current | field.mask)
        let deadline = time.nanoseconds + UInt64(profile.bootMilliseconds) * 2_000_000
        repeat {
            time.sleep(nanoseconds: 1_000_000)
            if try bus.readRegister(field.register) & field.mask == 0 { return }
        } while time.nanoseconds < deadline
        throw DriverError.bootDidNotFinish(location: bus.location, milliseconds: profile.bootMilliseconds * 2)
    }

    /// Clears PD: the chip stops converting and draws microamps.
    public func powerDown() throws {
        let field = profile.powerField
        let current = try bus.readRegister(field.register)
        try bus.writeRegister(field.register, current & ~field.mask)
        configuration = nil
    }

    /// Runs the datasheet self-test under the conditions its limits were
    /// published for (the smallest range, the self-test's mode): average
    /// the outputs, turn the actuator on, wait, average again, turn it off.
    /// The chip is left configured as before (or as the test left it, if
    /// it was not configured).
    public func selfTest(samplesPerPhase: Int = 5) throws -> SelfTestReport {
        guard let test = profile.selfTest else { throw DriverError.noSelfTest(part: profile.name) }
        let previous = configuration
        let mode = profile.mode(named: test.mode)!
        // ST's procedures run at 50 Hz where the part has it.
        let rate = mode.rates.first { $0.hertz >= 50 }?.hertz ?? mode.rates[0].hertz
        let conditions = DeviceConfiguration(range: profile.ranges[0].fullScale, rate: rate, mode: mode.name)
        try configure(conditions)
        let control = try registerValues(for: conditions).first { $0.register == test.field.register }!.value
        let settle = UInt64(profile.turnOnPeriods + 2) * outputPeriodNanoseconds

        func average() throws -> Vector3 {
            _ = try nextReading()  // discard: it may straddle the change
            var sum = Vector3.zero
            for _ in 0..<samplesPerPhase { sum += try nextReading().counts.vector }
            return sum / Double(samplesPerPhase)
        }

        let normal = try average()
        try bus.writeRegister(test.field.register, test.field.set(test.code, in: control))
        time.sleep(nanoseconds: settle)
        let deflected: Vector3
        do { deflected = try average() } catch {
            try? bus.writeRegister(test.field.register, control)
            throw error
        }
        try bus.writeRegister(test.field.register, control)
        time.sleep(nanoseconds: settle)
        if let previous { try configure(previous) }

        let delta = deflected - normal
        let axes = Axis.allCases.map { axis -> SelfTestReport.AxisResult in
            let published = test[axis]
            return SelfTestReport.AxisResult(axis: axis, normal: normal[axis], selfTest: deflected[axis], delta: delta[axis],
                                             limits: Double(published.lowerBound)...Double(published.upperBound),
                                             magnitudeOnly: test.magnitudeOnly)
        }
        return SelfTestReport(part: profile.name, range: conditions.range, mode: mode.name, axes: axes)
    }
}
