// SPDX-License-Identifier: Apache-2.0
import Testing
import AccelCore
import AccelParts
@testable import AccelDriver

/// The gyroscope's self-test on the chip model, as ST's example runs it.
@Suite("Six-axis parts: the gyroscope's self-test")
struct GyroscopeSelfTestTests {
    @Test("a good gyroscope passes on every part, through its offset and noise, and the chip is left as it was")
    func passes() throws {
        for profile in [ChipProfile.lsm6dso, .lsm6dsl, .lsm6ds3] {
            var imperfections = ChipModel.Imperfections()
            imperfections.gyroscopeOffset = Vector3(2, -3, 1)
            imperfections.gyroscopeNoise = 0.05
            let (driver, model, _) = try partModel(profile, imperfections: imperfections)
            let before = DeviceConfiguration(range: 4, rate: 104)
            try driver.configure(before)
            let report = try driver.gyroscopeSelfTest()
            #expect(report.passed, "\(report.summary)")
            for axis in report.axes { #expect(abs(axis.change - 425) < 1, "the middle of 150..700: \(report.summary)") }
            #expect(report.summary.hasPrefix("\(profile.name) gyroscope self-test at ±2000 dps: PASS"))
            #expect(driver.configuration == before && model.peek(0x14) & 0x0C == 0, "ST_G off, the configuration restored")
        }
    }

    @Test("a self-test rate outside 150..700 dps fails, naming the axis and the figures", arguments: [
        (Vector3(425, 80, 425), "Y: FAIL change 80.0 dps (limits |change| 150.0..700.0 dps): moved too little"),
        (Vector3(425, 425, 900), "Z: FAIL change 900.0 dps (limits |change| 150.0..700.0 dps): moved too far"),
        (Vector3(0, 425, 425), "X: FAIL change 0.0 dps (limits |change| 150.0..700.0 dps): did not move"),
    ])
    func fails(rate: Vector3, line: String) throws {
        var imperfections = ChipModel.Imperfections()
        imperfections.gyroscopeSelfTestRate = rate
        let (driver, _, _) = try partModel(.lsm6dso, imperfections: imperfections)
        let report = try driver.gyroscopeSelfTest()
        #expect(!report.passed)
        #expect(report.summary.contains(line), "\(report.summary)")
        #expect(report.axes.filter(\.passed).count == 2, "only the one axis fails")
    }

    @Test("a part without a gyroscope has no gyroscope self-test")
    func noGyroscope() throws {
        let (driver, _, _) = try partModel(.lis3dh)
        #expect(throws: DriverError.self) { try driver.gyroscopeSelfTest() }
    }
}
