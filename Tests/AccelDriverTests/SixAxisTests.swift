// SPDX-License-Identifier: Apache-2.0
import Testing
import AccelCore
import AccelParts
@testable import AccelDriver

/// ST's six-axis parts (LSM6DS family) on the chip model: the gyroscope
/// beside the accelerometer, as the register map has it.
@Suite("Six-axis parts: the gyroscope")
struct SixAxisTests {
    @Test("WHO_AM_I 0x6C, 0x6A and 0x69 name their parts; the shared IDs are aliases of one map")
    func identity() throws {
        for (profile, id) in [(ChipProfile.lsm6dso, 0x6C), (.lsm6dsl, 0x6A), (.lsm6ds3, 0x69)] as [(ChipProfile, Int)] {
            let model = ChipModel(profile: profile, time: VirtualTime())
            #expect(try Accelerometer.identify(model).name == profile.name)
            #expect(profile.whoAmI == UInt8(id) && profile.gyroscope != nil && profile.burstLength == 16)
        }
        #expect(ChipProfile.named("LSM6DSOX")?.name == "LSM6DSO" && ChipProfile.named("lsm6ds3tr-c")?.name == "LSM6DSL")
    }

    @Test("a turn of the tour reads as the gyroscope's rate, within a digit, while the accelerometer turns with it")
    func turnRate() throws {
        // The tour holds face up for 2 s, then turns 90° in 1 s toward landscape-left.
        let (driver, _, time) = try partModel(.lsm6dso, motion: MotionScript.tour())
        try driver.configure(DeviceConfiguration(range: 2, rate: 104))
        time.sleep(nanoseconds: 2_500_000_000)
        let reading = try driver.nextReading()
        let rate = try #require(reading.rotation.flatMap(driver.rotationRate))
        let digit = 0.070 * .pi / 180
        #expect(abs(rate.y + .pi / 2) <= digit && abs(rate.x) <= digit && abs(rate.z) <= digit, "\(rate) rad/s")
        let up = driver.acceleration(reading.counts)
        #expect(up.x > 0.6 && up.z > 0.6, "half way through the turn: \(up)")
    }

    @Test("the offset is read as the chip has it, and a turn beyond the range clips at ±2000 dps")
    func offsetAndClipping() throws {
        var imperfections = ChipModel.Imperfections()
        imperfections.gyroscopeOffset = Vector3(1, -1, 0.5)
        let (still, _, _) = try partModel(.lsm6dso, imperfections: imperfections)
        try still.configure(DeviceConfiguration(range: 2, rate: 104))
        let rest = try #require(try still.nextReading().rotation)
        #expect(rest == Counts(14, -14, 7), "1, -1 and 0.5 dps at 70 mdps a digit")
        let spin = MotionScript(name: "spin", segments: [.rotate(from: Vector3(0, 0, 1), to: Vector3(0, 1, 0), seconds: 0.02)])
        let (fast, _, _) = try partModel(.lsm6dso, motion: spin)
        try fast.configure(DeviceConfiguration(range: 2, rate: 833))
        let clipped = try #require(try fast.nextReading().rotation)
        #expect(clipped.x == 32767, "4500 dps about x clips at full scale: \(clipped)")
        #expect(fast.rotationRange == 2000 * .pi / 180)
    }

    @Test("XLDA and GDA are set by each sample and cleared by reading each sensor's last output byte")
    func dataReady() throws {
        let (driver, model, time) = try partModel(.lsm6dso)
        try driver.configure(DeviceConfiguration(range: 2, rate: 104))
        time.sleep(nanoseconds: 10_000_000)
        _ = try model.readRegister(0x0F)  // a transaction: the model catches up
        #expect(model.peek(0x1E) & 0x03 == 0x03)
        _ = try model.readRegister(0x27)
        #expect(model.peek(0x1E) & 0x03 == 0x01, "the gyroscope's OUTZ_H_G read: GDA clear, XLDA still set")
        let reading = try driver.read()
        #expect(reading.status.contains(.dataReady) && !reading.status.contains(.overrun))
        #expect(try driver.read().status.isEmpty, "the burst read both: nothing new until the next sample")
    }

    @Test("the gyroscope's self-test adds its deflection, within the published 150 to 700 dps")
    func gyroscopeSelfTest() throws {
        let (driver, model, time) = try partModel(.lsm6dso)
        try driver.configure(DeviceConfiguration(range: 2, rate: 208))
        let before = try #require(try driver.nextReading().rotation.flatMap(driver.rotationRate))
        try model.writeRegister(0x14, 0b0100)  // CTRL5_C ST_G = 01
        time.sleep(nanoseconds: 10_000_000)
        let during = try #require(try driver.nextReading().rotation.flatMap(driver.rotationRate))
        let change = (during.x - before.x) * 180 / .pi
        #expect((150...700).contains(change), "\(change) dps")
    }
}
