// SPDX-License-Identifier: Apache-2.0
import Testing
import AccelCore
import AccelParts
@testable import AccelDriver

#if canImport(Glibc)
import Glibc
#endif

/// A model of `profile` holding `force` still, and a driver made for it.
func partModel(_ profile: ChipProfile, _ force: Vector3 = Vector3(0, 0, 1),
               imperfections: ChipModel.Imperfections = .init(), motion: (any MotionSource)? = nil) throws -> (Accelerometer, ChipModel, VirtualTime) {
    let time = VirtualTime()
    let model = ChipModel(profile: profile, motion: motion ?? MotionScript(name: "still", segments: [.hold(force, seconds: 1)]),
                          time: time, imperfections: imperfections)
    return (try Accelerometer(bus: model, time: time, part: profile), model, time)
}

/// Every (part, mode, range) the table offers.
let everySetting: [(String, String, Int)] = ChipProfile.supported.flatMap { profile in
    profile.modes.flatMap { mode in profile.ranges.map { (profile.name, mode.name, $0.fullScale) } }
}

@Suite("Each part on its chip model")
struct PartTests {
    @Test("conversion at every range and mode: a quarter of full scale, the most negative value, clipping at the top",
          arguments: everySetting)
    func conversion(part: String, mode: String, range: Int) throws {
        let profile = try #require(ChipProfile.named(part))
        let fullScale = Double(range)
        let (driver, _, _) = try partModel(profile, Vector3(fullScale / 4, -100 * fullScale, 100 * fullScale))
        let modeRates = profile.mode(named: mode)!.rates.map(\.hertz)
        try driver.configure(DeviceConfiguration(range: range, rate: modeRates.contains(100) ? 100 : modeRates[0], mode: mode))
        let reading = try driver.nextReading()
        let sensitivity = try #require(profile.sensitivity(fullScale: range, mode: profile.mode(named: mode)!))
        let bits = profile.mode(named: mode)!.resolutionBits
        #expect(driver.resolutionBits == bits)
        #expect(driver.sensitivity == sensitivity)
        #expect(reading.counts.x == Int((fullScale / 4 / sensitivity).rounded()))
        #expect(reading.counts.y == -(1 << (bits - 1)), "the most negative value keeps its sign")
        #expect(reading.counts.z == (1 << (bits - 1)) - 1, "clipped at the top")
        #expect(abs(driver.acceleration(reading.counts).x - fullScale / 4) <= sensitivity / 2)
        #expect(driver.acceleration(reading.counts).y == -Double(1 << (bits - 1)) * sensitivity)
    }

    @Test("configure writes exactly the part's control registers, and they read back", arguments: [
        ("LIS302DL", DeviceConfiguration(range: 8, rate: 400), [(0x20, 0xE7), (0x21, 0x00), (0x22, 0x00), (0x30, 0x00), (0x32, 0x00), (0x33, 0x00)]),
        ("LIS331DLH", DeviceConfiguration(range: 8, rate: 400), [(0x20, 0x37), (0x21, 0x00), (0x22, 0x00), (0x23, 0xB0), (0x30, 0x00), (0x32, 0x00), (0x33, 0x00)]),
        ("LIS331HH", DeviceConfiguration(range: 12, rate: 1000), [(0x20, 0x3F), (0x21, 0x00), (0x22, 0x00), (0x23, 0x90), (0x30, 0x00), (0x32, 0x00), (0x33, 0x00)]),
        ("H3LIS331DL", DeviceConfiguration(range: 400, rate: 50), [(0x20, 0x27), (0x21, 0x00), (0x22, 0x00), (0x23, 0xB0), (0x30, 0x00), (0x32, 0x00), (0x33, 0x00)]),
        ("LIS3DH", DeviceConfiguration(range: 16, rate: 1344), [(0x20, 0x97), (0x21, 0x00), (0x22, 0x00), (0x23, 0xB8), (0x24, 0x00), (0x25, 0x00), (0x2E, 0x00), (0x30, 0x00), (0x32, 0x00), (0x33, 0x00)]),
        ("LIS3DH", DeviceConfiguration(range: 2, rate: 5376, mode: "low-power"), [(0x20, 0x9F), (0x21, 0x00), (0x22, 0x00), (0x23, 0x80), (0x24, 0x00), (0x25, 0x00), (0x2E, 0x00), (0x30, 0x00), (0x32, 0x00), (0x33, 0x00)]),
        ("LIS3DH", DeviceConfiguration(range: 4, rate: 400, fifoWatermark: 12), [(0x20, 0x77), (0x21, 0x00), (0x22, 0x00), (0x23, 0x98), (0x24, 0x40), (0x25, 0x00), (0x2E, 0x8B), (0x30, 0x00), (0x32, 0x00), (0x33, 0x00)]),
        ("LIS2DH12", DeviceConfiguration(range: 4, rate: 100, mode: "normal"), [(0x20, 0x57), (0x21, 0x00), (0x22, 0x00), (0x23, 0x90), (0x24, 0x00), (0x25, 0x00), (0x2E, 0x00), (0x30, 0x00), (0x32, 0x00), (0x33, 0x00)]),
        ("LIS3DSH", DeviceConfiguration(range: 6, rate: 400), [(0x25, 0x10), (0x20, 0x7F), (0x23, 0x00), (0x24, 0x10)]),
        // CTRL3_C BDU | IF_INC; CTRL1_XL ODR 104 Hz, FS ±4 g (code 10); CTRL2_G ODR 104 Hz, FS 2000 dps.
        ("LSM6DSO", DeviceConfiguration(range: 4, rate: 104), [(0x12, 0x44), (0x10, 0x48), (0x11, 0x4C), (0x13, 0x00), (0x14, 0x00), (0x0D, 0x00), (0x0E, 0x00),
                                                               (0x17, 0x80), (0x56, 0x10), (0x58, 0x00), (0x5B, 0x00), (0x5C, 0x00), (0x5E, 0x00), (0x5F, 0x00), (0x07, 0x00), (0x08, 0x00), (0x09, 0x00), (0x0A, 0x00)]),
        ("LSM6DSO", DeviceConfiguration(range: 2, rate: 416, fifoWatermark: 1), [(0x12, 0x44), (0x10, 0x60), (0x11, 0x6C), (0x13, 0x00), (0x14, 0x00), (0x0D, 0x00), (0x0E, 0x00),
                                                                                 (0x17, 0x80), (0x56, 0x10), (0x58, 0x00), (0x5B, 0x00), (0x5C, 0x00), (0x5E, 0x00), (0x5F, 0x00), (0x07, 0x02), (0x08, 0x00), (0x09, 0x66), (0x0A, 0x06)]),
        ("LSM6DS3", DeviceConfiguration(range: 16, rate: 1660), [(0x12, 0x44), (0x10, 0x84), (0x11, 0x8C), (0x13, 0x00), (0x14, 0x00), (0x0D, 0x00), (0x0E, 0x00),
                                                                (0x17, 0x20), (0x58, 0x10), (0x5B, 0x00), (0x5C, 0x00), (0x5E, 0x00), (0x5F, 0x00), (0x06, 0x00), (0x07, 0x00), (0x08, 0x00), (0x09, 0x00), (0x0A, 0x00)]),
        ("LSM6DSL", DeviceConfiguration(range: 2, rate: 104, fifoWatermark: 2), [(0x12, 0x44), (0x10, 0x40), (0x11, 0x4C), (0x13, 0x00), (0x14, 0x00), (0x0D, 0x00), (0x0E, 0x00),
                                                                                (0x17, 0x20), (0x58, 0x10), (0x5B, 0x00), (0x5C, 0x00), (0x5E, 0x00), (0x5F, 0x00), (0x06, 0x0C), (0x07, 0x00), (0x08, 0x09), (0x09, 0x00), (0x0A, 0x26)]),
        // Routed: LIS302DL I1CFG = 100; LIS3DH I1_WTM while the FIFO batches; LSM6DSO INT2_DRDY_XL.
        ("LIS302DL", DeviceConfiguration(range: 2, rate: 400, interruptPin: .int1), [(0x20, 0xC7), (0x21, 0x00), (0x22, 0x04), (0x30, 0x00), (0x32, 0x00), (0x33, 0x00)]),
        ("LIS302DL", DeviceConfiguration(range: 2, rate: 400, interruptPin: .int2), [(0x20, 0xC7), (0x21, 0x00), (0x22, 0x20), (0x30, 0x00), (0x32, 0x00), (0x33, 0x00)]),
        ("LIS3DH", DeviceConfiguration(range: 2, rate: 400, fifoWatermark: 12, interruptPin: .int1),
         [(0x20, 0x77), (0x21, 0x00), (0x22, 0x04), (0x23, 0x88), (0x24, 0x40), (0x25, 0x00), (0x2E, 0x8B), (0x30, 0x00), (0x32, 0x00), (0x33, 0x00)]),
        ("LSM6DSO", DeviceConfiguration(range: 4, rate: 104, interruptPin: .int2), [(0x12, 0x44), (0x10, 0x48), (0x11, 0x4C), (0x13, 0x00), (0x14, 0x00),
                                                                                     (0x0D, 0x00), (0x0E, 0x01), (0x17, 0x80), (0x56, 0x10), (0x58, 0x00), (0x5B, 0x00), (0x5C, 0x00), (0x5E, 0x00), (0x5F, 0x00), (0x07, 0x00), (0x08, 0x00), (0x09, 0x00), (0x0A, 0x00)]),
        // The wake-up unit armed: LIS3DH at 10 Hz, HP_IA1, I1_IA1, LIR_INT1, ZHIE YHIE XHIE, 6 steps of 16 mg;
        // LSM6DSO at 26 Hz, LIR, INTERRUPTS_ENABLE, 3 steps of 2 g / 64, INT1_WU;
        // on every six-axis part, the unit's high-pass at ODR / 100 (HPCF_XL, SLOPE_FDS).
        ("LIS3DH", DeviceConfiguration(range: 2, rate: 10, interruptPin: .int1, wakeUp: .init(threshold: 0.1)),
         [(0x20, 0x27), (0x21, 0x01), (0x22, 0x40), (0x23, 0x88), (0x24, 0x08), (0x25, 0x00), (0x2E, 0x00), (0x30, 0x2A), (0x32, 0x06), (0x33, 0x00)]),
        ("LSM6DSO", DeviceConfiguration(range: 2, rate: 26, interruptPin: .int1, wakeUp: .init(threshold: 0.1)),
         [(0x12, 0x44), (0x10, 0x20), (0x11, 0x2C), (0x13, 0x00), (0x14, 0x00), (0x0D, 0x00), (0x0E, 0x00),
          (0x17, 0x80), (0x56, 0x11), (0x58, 0x80), (0x5B, 0x03), (0x5C, 0x00), (0x5E, 0x20), (0x5F, 0x00), (0x07, 0x00), (0x08, 0x00), (0x09, 0x00), (0x0A, 0x00)]),
    ] as [(String, DeviceConfiguration, [(Int, Int)])])
    func configureWrites(part: String, configuration: DeviceConfiguration, expected: [(Int, Int)]) throws {
        let profile = try #require(ChipProfile.named(part))
        let time = VirtualTime()
        let model = ChipModel(profile: profile, time: time)
        let bus = RecordingBus(model)
        let driver = try Accelerometer(bus: bus, time: time, part: profile)
        try driver.configure(configuration)
        #expect(bus.writes.map { Int($0.0) } == expected.map(\.0))
        #expect(bus.writes.map { Int($0.1) } == expected.map(\.1))
        for (register, value) in expected { #expect(Int(model.peek(UInt8(register))) == value, "\(hex(UInt8(register))) reads back") }
        #expect(try driver.configurationIsIntact())
    }

    @Test("power-down zeroes the part's power field, and only it", arguments: [
        ("LIS302DL", 0x20, 0x07), ("LIS331DLH", 0x20, 0x0F), ("LIS3DH", 0x20, 0x07), ("LIS3DSH", 0x20, 0x0F),
    ] as [(String, Int, Int)])
    func powerDown(part: String, register: Int, expected: Int) throws {
        let (driver, model, _) = try partModel(ChipProfile.named(part)!)
        try driver.configure(driver.defaultConfiguration())
        try driver.powerDown()
        #expect(Int(model.peek(UInt8(register))) == expected)
    }

    @Test("self-test passes on a healthy model of every part that has one", arguments: ChipProfile.supported.filter { $0.selfTest != nil }.map(\.name))
    func selfTestPasses(part: String) throws {
        let profile = ChipProfile.named(part)!
        let (driver, _, _) = try partModel(profile)
        try driver.configure(DeviceConfiguration(range: profile.ranges.last!.fullScale, rate: driver.defaultConfiguration().rate))
        let report = try driver.selfTest()
        #expect(report.passed, "\(report.summary)")
        #expect(report.mode == profile.selfTest!.mode && report.range == profile.ranges[0].fullScale)
        #expect(driver.configuration?.range == profile.ranges.last!.fullScale, "the configuration is restored")
    }

    @Test("self-test fails on a stuck axis, naming it", arguments: ChipProfile.supported.filter { $0.selfTest != nil }.map(\.name))
    func selfTestFailsStuckAxis(part: String) throws {
        var broken = ChipModel.Imperfections()
        broken.stuckOutputs = [.y: 3]
        let (driver, _, _) = try partModel(ChipProfile.named(part)!, imperfections: broken)
        let report = try driver.selfTest()
        #expect(!report.passed)
        #expect(report.axes.filter { !$0.passed }.map(\.axis) == [.y])
        #expect(report.summary.contains("Y: FAIL") && report.summary.contains("stuck"))
    }

    @Test("LIS3DH's two-bit self-test code: ST[1:0] = 01 is written, not a single bit")
    func multiBitSelfTestCode() throws {
        let time = VirtualTime()
        let model = ChipModel(profile: .lis3dh, time: time)
        let bus = RecordingBus(model)
        let driver = try Accelerometer(bus: bus, time: time, part: .lis3dh)
        _ = try driver.selfTest()
        let ctrl4 = bus.writes.filter { $0.0 == 0x23 }.map(\.1)
        #expect(ctrl4.contains(0x80 | 0x02), "normal mode, ±2 g, BDU, ST = 01: \(ctrl4.map(hex))")
        #expect(!ctrl4.contains { $0 & 0x06 == 0x06 }, "ST = 11 is not allowed")
        #expect(ctrl4.last! & 0x06 == 0, "self-test off at the end")
    }

    @Test("a part without a published self-test says so instead of inventing limits", arguments: ["H3LIS331DL", "LIS3DSH"])
    func noSelfTest(part: String) throws {
        let (driver, _, _) = try partModel(ChipProfile.named(part)!)
        let error = #expect(throws: DriverError.self) { try driver.selfTest() }
        #expect(error?.description.contains("\(part) has no self-test") == true)
        #expect(error?.exitCode == 64)
    }

    @Test("a shared WHO_AM_I is refused without a part, listing the candidates, and served with one")
    func ambiguousWhoAmI() throws {
        let time = VirtualTime()
        let model = ChipModel(profile: .lis331hh, time: time)
        let error = #expect(throws: DriverError.self) { try Accelerometer(bus: model, time: time) }
        #expect(error == .ambiguousPart(location: model.location, whoAmI: 0x32, candidates: ["LIS331DLH", "LIS331HH", "H3LIS331DL"]))
        #expect(error?.description.contains("--part NAME") == true && error?.description.contains("part = NAME") == true)
        #expect(error?.exitCode == 78)
        let driver = try Accelerometer(bus: model, time: time, part: .lis331hh)
        #expect(driver.profile.name == "LIS331HH")
    }

    @Test("a named part that answers another WHO_AM_I is refused with both values")
    func wrongPart() throws {
        let time = VirtualTime()
        let model = ChipModel(profile: .lis302dl, time: time)
        let error = #expect(throws: DriverError.self) { try Accelerometer(bus: model, time: time, part: .lis3dh) }
        #expect(error == .wrongPart(location: model.location, part: "LIS3DH", expected: 0x33, found: 0x3B))
        #expect(error?.description.contains("answered WHO_AM_I 0x3b, but the configured part LIS3DH answers 0x33") == true)
        #expect(error?.description.contains("0x3b is LIS302DL") == true)
    }

    @Test("LIS3DSH: auto-increment by ADD_INC, not by bit 7 of the sub-address")
    func lis3dshAutoIncrement() throws {
        let (driver, model, _) = try partModel(.lis3dsh, Vector3(0.5, -0.25, 1))
        // Without ADD_INC a burst reads STATUS again and again.
        #expect(try model.readBlock(from: 0x27, count: 3) == [0, 0, 0])
        try driver.configure(DeviceConfiguration(range: 2, rate: 100))
        let g = driver.acceleration(try driver.nextReading().counts)
        #expect(abs(g.x - 0.5) < 0.001 && abs(g.y + 0.25) < 0.001 && abs(g.z - 1) < 0.001)
        #expect(driver.profile.burstAddress(0x27) == 0x27)
    }

    @Test("parts by name: canonical names and aliases, any case; unknown names list the choices")
    func names() {
        #expect(ChipProfile.named("lis331dl")?.name == "LIS302DL")
        #expect(ChipProfile.named("Lis3dh")?.name == "LIS3DH")
        #expect(ChipProfile.named("LIS3DHX") == nil)
        // Every part and alias, each alias beside its part.
        #expect(DriverError.unknownPart("LIS3DHX").description.contains("LIS302DL (or LIS331DL), LIS331DLH, LIS331HH, LIS3DH, LIS3DSH; six-axis: LSM6DS3, LSM6DSL (or LSM6DS3TR-C), LSM6DSO (or LSM6DSOX)"))
    }
}

/// Reads from a LIS3DH's FIFO, on the model, with a slow tilt so that
/// every sample differs from the one before.
@Suite("FIFO")
struct FIFOTests {
    /// x rises 0.4 g a second: 1 mg, one high-resolution digit, per sample at 400 Hz.
    final class Ramp: MotionSource {
        var name: String { "ramp" }
        var duration: Double { 60 }
        func specificForce(at t: Double) -> Vector3 { Vector3(0.4 * t, 0, 1) }
    }

    func streaming(watermark: Int, maximumRead: Int = Int.max) throws -> (Accelerometer, ChipModel, VirtualTime) {
        let (driver, model, time) = try partModel(.lis3dh, motion: Ramp())
        model.maximumReadLength = maximumRead
        try driver.configure(DeviceConfiguration(range: 2, rate: 400, fifoWatermark: watermark))
        return (driver, model, time)
    }

    @Test("stream mode queues samples in order; one transfer reads them all")
    func orderAndOneTransfer() throws {
        let (driver, model, time) = try streaming(watermark: 16)
        _ = try driver.readFIFOStatus()
        var samples: [Reading] = []
        try driver.readFIFO(count: try driver.readFIFOStatus().level, into: &samples)  // drain what turn-on left
        time.advance(seconds: 16 / 400.0)
        let status = try driver.readFIFOStatus()
        #expect(status.level == 16 && !status.overrun)
        let before = model.counters.transactions
        try driver.readFIFO(count: status.level, into: &samples)
        #expect(model.counters.transactions - before == 1, "192 bytes would be one I2C_RDWR transfer; 96 here")
        #expect(samples.count == 16)
        let steps = zip(samples.dropFirst(), samples).map { $0.counts.x - $1.counts.x }
        #expect(steps.allSatisfy { $0 == 1 }, "consecutive samples, oldest first: \(steps)")
        #expect(try driver.readFIFOStatus().level == 0)
        #expect(try driver.readFIFOStatus().raw & 0x20 != 0, "EMPTY")
    }

    @Test("an SMBus-only adapter reads whole samples in 30-byte chunks, the same values")
    func smbusFallback() throws {
        let (driver, model, time) = try streaming(watermark: 16, maximumRead: 32)
        var samples: [Reading] = []
        try driver.readFIFO(count: try driver.readFIFOStatus().level, into: &samples)
        time.advance(seconds: 16 / 400.0)
        let level = try driver.readFIFOStatus().level
        let before = model.counters.transactions
        try driver.readFIFO(count: level, into: &samples)
        #expect(model.counters.transactions - before == 4, "30 + 30 + 30 + 6 bytes")
        #expect(zip(samples.dropFirst(), samples).allSatisfy { $0.counts.x - $1.counts.x == 1 })
    }

    @Test("a full FIFO reads FSS 31 with OVRN_FIFO set: 32 samples, the oldest overwritten and counted")
    func overrun() throws {
        let (driver, model, time) = try streaming(watermark: 16)
        var samples: [Reading] = []
        try driver.readFIFO(count: try driver.readFIFOStatus().level, into: &samples)
        let lostBefore = model.counters.samplesLost
        time.advance(seconds: 80 / 400.0)
        let status = try driver.readFIFOStatus()
        #expect(status.raw == 0xDF, "WTM, OVRN_FIFO, FSS = 31")
        #expect(status.level == 32 && status.overrun)
        #expect(model.counters.samplesLost - lostBefore == 48)
        try driver.readFIFO(count: 32, into: &samples)
        #expect(zip(samples.dropFirst(), samples).allSatisfy { $0.counts.x - $1.counts.x == 1 }, "the newest 32, in order")
    }

    @Test("an impossible FIFO_SRC is an error, never a level", arguments: [UInt8(0x3F), 0x65])
    func impossibleStatus(raw: UInt8) throws {
        let (driver, model, _) = try streaming(watermark: 16)
        model.fifoSourceOverride = raw
        #expect(throws: Accelerometer.FIFOStatusError.self) { try driver.readFIFOStatus() }
    }

    @Test("the watermark changes without a new phase; 0 goes back to bypass and empties the FIFO")
    func watermarkChange() throws {
        let (driver, model, time) = try streaming(watermark: 16)
        time.advance(seconds: 0.05)
        try driver.setFIFOWatermark(8)
        #expect(model.peek(0x2E) == 0x87 && model.peek(0x24) == 0x40, "FTH 7: WTM rises at 8")
        #expect(model.fifoLevel > 0, "stream to stream keeps the queue")
        try driver.setFIFOWatermark(0)
        #expect(model.peek(0x2E) == 0x00 && model.peek(0x24) == 0x00 && model.fifoLevel == 0)
        #expect(try driver.configurationIsIntact())
    }
}
