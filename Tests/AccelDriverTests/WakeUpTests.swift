// SPDX-License-Identifier: Apache-2.0
import AccelCore
import AccelParts
@testable import AccelDriver
import Testing

/// The wake-up unit of each part, armed as acceld arms it, on the chip
/// model: the board's attitude never wakes it, motion does within a
/// sample or two, and the source says so once.
@Suite("The chip's wake-up unit")
struct WakeUpTests {
    /// Tilted and still for 3 s, then shaken along Y (±0.5 g at 3 Hz: not a multiple of half a slow rate, where every sample would fall on a zero).
    static func stillThenShaken() -> MotionScript { MotionScript(name: "still, then shaken", segments: [
        .hold(Vector3(0.3, 0.2, 0.93), seconds: 3),
        .shake(base: Vector3(0.3, 0.2, 0.93), axis: Vector3(0, 1, 0), amplitude: 0.5, hertz: 3, seconds: 1),
        .hold(Vector3(0.3, 0.2, 0.93), seconds: 10),
    ], loops: false) }

    @Test("armed at its slow rate: still, no edge for 3 s; shaken, an edge within two samples, and the source says it once",
          arguments: ["LIS302DL", "LIS331DLH", "LIS3DH", "LIS2DH12", "LSM6DSO", "LSM6DSL"])
    func wakesOnMotion(part: String) throws {
        let profile = try #require(ChipProfile.supported.first { $0.name == part })
        let (driver, model, time) = try partModel(profile, motion: Self.stillThenShaken())
        let motionStart = time.nanoseconds + 3_000_000_000  // the model's motion starts with it
        let rate = profile.wakeUpRate
        try driver.configure(DeviceConfiguration(range: profile.ranges[0].fullScale, rate: rate, interruptPin: .int1,
                                                 wakeUp: .init(threshold: 0.1)))
        try driver.resetWakeUp()
        let line = SimulatedInterruptLine(model: model, pin: .int1, time: time)
        var edges: [Edge] = []
        while edges.isEmpty && time.nanoseconds < motionStart + 1_000_000_000 {
            edges = try line.wait(nanoseconds: 100_000_000)
        }
        let edge = try #require(edges.first, "no wake-up edge")
        let period = model.periodNanoseconds
        #expect(edge.instant >= motionStart, "woke \(Double(motionStart - edge.instant) / 1e6) ms before the motion")
        #expect(edge.instant <= motionStart + 2 * period, "woke \(Double(edge.instant - motionStart) / 1e6) ms after it")
        #expect(try driver.wakeUpFired())
        #expect(try !driver.wakeUpFired(), "the latch is released by the read")
    }

    @Test("configured without it, the unit stays off: shaking raises nothing")
    func offUnlessArmed() throws {
        let (driver, model, time) = try partModel(.lis3dh, motion: Self.stillThenShaken())
        try driver.configure(DeviceConfiguration(range: 2, rate: 100, interruptPin: .int1))
        time.advance(seconds: 3.5)
        #expect(try !driver.wakeUpFired())
        #expect(model.peek(0x30) == 0 && model.peek(0x22) & 0x40 == 0)
    }

    @Test("the threshold in steps of the range's: at least one, at most the field's largest")
    func thresholdSteps() throws {
        #expect(ChipProfile.lis302dl.wakeUp!.steps(for: 0.1, range: 2, in: .lis302dl) == 6)
        #expect(ChipProfile.lis3dh.wakeUp!.steps(for: 0.1, range: 16, in: .lis3dh) == 1)
        #expect(ChipProfile.lis3dh.wakeUp!.steps(for: 5, range: 2, in: .lis3dh) == 127)
        #expect(ChipProfile.lsm6dso.wakeUp!.steps(for: 0.25, range: 2, in: .lsm6dso) == 8)
    }

    @Test("a part whose unit is not in the table says so, with exit 78")
    func noUnit() throws {
        let (driver, _, _) = try partModel(.lis3dsh)
        #expect(throws: DriverError.noWakeUpUnit(part: "LIS3DSH")) {
            try driver.configure(DeviceConfiguration(range: 2, rate: 100, wakeUp: .init(threshold: 0.1)))
        }
        #expect(DriverError.noWakeUpUnit(part: "LIS3DSH").exitCode == 78)
    }
}
