// SPDX-License-Identifier: Apache-2.0
import Testing
import AccelCore
import AccelParts
@testable import AccelDriver

@Suite("Driver against the chip model")
struct AccelerometerTests {
    @Test("configure writes CTRL_REG1..3 and the wake-up unit's registers (off) in full, and nothing else", arguments: [
        (2, 100, UInt8(0x47)), (8, 100, 0x67), (2, 400, 0xC7), (8, 400, 0xE7),
    ])
    func configureWrites(range: Int, rate: Int, ctrl1: UInt8) throws {
        let (model, time) = stillModel()
        let bus = RecordingBus(model)
        let driver = try Accelerometer(bus: bus, time: time)
        try driver.configure(DeviceConfiguration(range: range, rate: rate))
        #expect(bus.writes.map(\.0) == [0x20, 0x21, 0x22, 0x30, 0x32, 0x33])
        #expect(bus.writes.map(\.1) == [ctrl1, 0x00, 0x00, 0x00, 0x00, 0x00])
        #expect(model.peek(0x21) & 0x10 == 0, "FDS stays 0: outputs are not high-passed")
    }

    @Test("configure waits the turn-on time so the first read has data")
    func turnOnWait() throws {
        let (driver, _, time) = try configuredDriver(rate: 400)
        #expect(time.nanoseconds >= 7_500_000)
        #expect(try driver.read().status.contains(.dataReady))
    }

    @Test("a register that reads back differently is an error naming it")
    func readBackMismatch() throws {
        let (model, time) = stillModel()
        let bus = RecordingBus(model)
        bus.readOverrides[0x20] = 0x07
        let driver = try Accelerometer(bus: bus, time: time)
        #expect(throws: DriverError.configurationMismatch(location: "chip model at 0x1c", register: 0x20, wrote: 0x47, readBack: 0x07)) {
            try driver.configure(DeviceConfiguration())
        }
    }

    @Test("a chip reset to power-down is noticed by the read-back check")
    func lostConfiguration() throws {
        let (driver, model, _) = try configuredDriver()
        #expect(try driver.configurationIsIntact())
        model.resetToPowerDown()
        #expect(try driver.configurationIsIntact() == false)
    }

    static let conversions: [(range: Int, force: Double, digits: Int)] = [
        (2, 1.0, 56), (2, 3.0, 127), (2, -3.0, -128), (8, 1.0, 14), (8, 10.0, 127), (8, -10.0, -128),
    ]

    @Test("conversion at both ranges, including clipping at about ±2.3 g and ±9.2 g", arguments: conversions)
    func conversion(range: Int, force: Double, digits: Int) throws {
        let (driver, _, _) = try configuredDriver(Vector3(force, 0, 0), range: range)
        let g = driver.acceleration(try driver.read().counts)
        let gPerDigit = range == 2 ? 0.018 : 0.072
        #expect(abs(g.x - Double(digits) * gPerDigit) < 1e-9)
    }

    @Test("0x80 is -128 digits and 0x7F is +127: outputs are two's complement")
    func signedDecode() throws {
        let (driver, _, _) = try configuredDriver()
        let reading = driver.decode([0x08, 0x00, 0x80, 0x00, 0x7F, 0x00, 0xFF])
        #expect(reading.counts == Counts(-128, 127, -1))
        #expect(reading.status == .dataReady)
    }

    @Test("one sample is one 7-byte transaction")
    func oneTransactionPerSample() throws {
        let (driver, model, time) = try configuredDriver()
        let before = model.counters
        for _ in 0..<100 {
            time.advance(seconds: 0.01)
            _ = try driver.read()
        }
        #expect(model.counters.transactions - before.transactions == 100)
        #expect(model.counters.bytesRead - before.bytesRead == 700)
    }

    @Test("self-test passes on a healthy chip")
    func selfTestPasses() throws {
        let (model, time) = stillModel()
        let driver = try Accelerometer(bus: model, time: time)
        let report = try driver.selfTest()
        #expect(report.passed)
        #expect(report.axes.map(\.delta) == [-17, 17, 17])
        #expect(report.mode == "normal" && report.range == 2)
        #expect(model.peek(0x20) == 0x47, "STP is cleared again")
    }

    @Test("self-test fails on a chip whose X axis is stuck, and says so")
    func selfTestFailsStuckAxis() throws {
        var broken = ChipModel.Imperfections()
        broken.stuckOutputs = [.x: 3]
        let (driver, _, _) = try configuredDriver(imperfections: broken)
        let report = try driver.selfTest()
        #expect(!report.passed)
        #expect(report.axes.filter { !$0.passed }.map(\.axis) == [.x])
        #expect(report.summary.contains("X: FAIL"))
        #expect(report.summary.contains("stuck"))
    }

    @Test("self-test runs at the published conditions (±2 g) whatever the range, and restores it")
    func selfTestConditions() throws {
        let (driver, model, _) = try configuredDriver(range: 8, rate: 400)
        let report = try driver.selfTest()
        #expect(report.range == 2 && report.passed)
        #expect(report.axes[0].limits == -32 ... -3)
        #expect(model.peek(0x20) == 0xE7, "±8 g at 400 Hz again")
    }

    @Test("calibration applies in the chip's axes before the mount matrix")
    func calibrationThenMount() throws {
        // The chip's X carries a +0.108 g offset; the board's Y is the chip's X.
        var flawed = ChipModel.Imperfections()
        flawed.offset = Vector3(0.108, 0, 0)
        let (driver, _, _) = try configuredDriver(Vector3(0, 0, 1), imperfections: flawed)
        driver.calibration = Calibration(offset: Vector3(0.108, 0, 0))
        driver.mountMatrix = try MountMatrix(parsing: "0, -1, 0; 1, 0, 0; 0, 0, 1")
        let g = driver.acceleration(try driver.read().counts)
        #expect(abs(g.x) < 1e-9 && abs(g.y) < 1e-9)
        // Rotated before calibrating, the offset would land on the wrong axis.
        let wrongOrder = Calibration(offset: Vector3(0.108, 0, 0)).apply(driver.mountMatrix.apply(driver.chipAcceleration(try driver.read().counts)))
        #expect(abs(wrongOrder.y - 0.108) < 1e-9)
    }

    @Test("calibration scale corrects a sensitivity error")
    func calibrationScale() throws {
        var flawed = ChipModel.Imperfections()
        flawed.sensitivityError = Vector3(0, 0, 0.08)
        let (driver, _, _) = try configuredDriver(Vector3(0, 0, 1), imperfections: flawed)
        driver.calibration = Calibration(scale: Vector3(1, 1, 1 / 1.08))
        #expect(abs(driver.acceleration(try driver.read().counts).z - 1) < 0.01)
    }

    @Test("an unknown WHO_AM_I names the value and the part it suggests")
    func unknownChip() throws {
        let (model, time) = stillModel()
        let bus = RecordingBus(model)
        bus.readOverrides[0x0F] = 0x44
        let error = #expect(throws: DriverError.self) { try Accelerometer(bus: bus, time: time) }
        #expect(error?.description.contains("0x44") == true)
        #expect(error?.description.contains("LIS2DW12") == true)
        #expect(error?.description.contains("LIS3DH/LIS2DH12 with 0x33") == true, "the message lists what is driven")
        #expect(error?.exitCode == 65)
    }

    @Test("a range or rate the chip lacks is refused with the choices")
    func unsupportedSettings() throws {
        let (model, time) = stillModel()
        let driver = try Accelerometer(bus: model, time: time)
        #expect(throws: DriverError.unsupportedRange(4, part: "LIS302DL", available: [2, 8])) { try driver.configure(DeviceConfiguration(range: 4)) }
        #expect(throws: DriverError.unsupportedRate(50, part: "LIS302DL", mode: "normal", available: [100, 400])) { try driver.configure(DeviceConfiguration(rate: 50)) }
        #expect(DriverError.unsupportedRate(50, part: "LIS302DL", mode: "normal", available: [100, 400]).description
                == "rate 50 Hz is not available on the LIS302DL in normal mode: choose one of 100 Hz, 400 Hz")
    }

    @Test("power-down clears PD and keeps the rest of CTRL_REG1")
    func powerDown() throws {
        let (driver, model, _) = try configuredDriver(range: 8, rate: 400)
        try driver.powerDown()
        #expect(model.peek(0x20) == 0xA7)
    }

    @Test("boot sets BOOT and returns once the chip clears it")
    func boot() throws {
        let (driver, model, _) = try configuredDriver()
        try driver.boot()
        #expect(model.peek(0x21) & 0x40 == 0)
    }

    @Test("nextReading gives up with a clear error when ZYXDA never sets")
    func stuckChip() throws {
        let (driver, model, _) = try configuredDriver()
        _ = try driver.read()
        model.dataReadyStuck = true
        #expect(throws: DriverError.noData(location: "chip model at 0x1c", waitedMilliseconds: 100)) { try driver.nextReading() }
    }
}

@Suite("Mount matrix")
struct MountMatrixTests {
    @Test("parses the IIO string form and prints it back")
    func roundTrip() throws {
        let matrix = try MountMatrix(parsing: "0, 1, 0; -1, 0, 0; 0, 0, 1")
        #expect(matrix.apply(Vector3(1, 2, 3)) == Vector3(2, -1, 3))
        #expect(matrix.description == "0, 1, 0; -1, 0, 0; 0, 0, 1")
    }

    @Test("rejects malformed and non-rotation matrices with the reason", arguments: [
        ("1, 0, 0; 0, 1, 0", "found 2 rows"),
        ("1, 0; 0, 1, 0; 0, 0, 1", "row 1 has 2 numbers"),
        ("1, 0, x; 0, 1, 0; 0, 0, 1", "\"x\" in row 1 is not a number"),
        ("2, 0, 0; 0, 1, 0; 0, 0, 1", "row 1 has length 2"),
        ("1, 0, 0; 1, 0, 0; 0, 0, 1", "rows 1 and 2 are not perpendicular"),
    ])
    func rejects(text: String, reason: String) {
        let error = #expect(throws: MountMatrix.ParseError.self) { try MountMatrix(parsing: text) }
        #expect(error?.description.contains(reason) == true, "\(error?.description ?? "")")
    }
}
