// SPDX-License-Identifier: Apache-2.0
import AccelCore
import AccelParts
@testable import AccelDriver
import Testing

/// The INT pins as data and on the chip model: the driver routes data
/// ready or the watermark where the part can, refuses where it cannot,
/// and the model's pin follows the datasheet's latched signals.
@Suite("Interrupt pins")
struct InterruptPinTests {
    @Test("every route is written by configure: its registers are in the part's baseline", arguments: ChipProfile.supported.map(\.name))
    func routesAreWritten(part: String) throws {
        let profile = try #require(ChipProfile.named(part))
        let pins = try #require(profile.interruptPins, "\(part) has no INT pins in the table")
        let written = Set(profile.controlBaseline.map(\.register))
        for route in pins.routes {
            for setting in route.settings {
                #expect(written.contains(setting.field.register), "\(part) \(route.pin) \(route.signal): \(hex(setting.field.register)) is never written")
            }
        }
        #expect(written.contains(pins.activeHigh.field.register))
        #expect(pins.route(.dataReady, to: .int1) != nil, "every part here brings data ready out on INT1")
    }

    @Test("data ready on INT1: the pin rises with each sample and falls when it is read (latched, active high)")
    func dataReadyLatched() throws {
        let (driver, model, time) = try partModel(.lis302dl)
        try driver.configure(DeviceConfiguration(range: 2, rate: 400, interruptPin: .int1))
        #expect(model.peek(0x22) == 0x04, "CTRL_REG3 I1CFG = 100, IHL = 0")
        let first = try #require(model.sampleInstant(after: time.nanoseconds))
        time.set(nanoseconds: first - 1)
        _ = try driver.read()  // whatever turn-on left is read
        #expect(!model.level(of: .int1))
        time.set(nanoseconds: first + 1000)
        #expect(model.level(of: .int1), "a new sample raises INT1")
        #expect(!model.level(of: .int2), "INT2 carries nothing")
        time.advance(seconds: 0.01)  // four periods unread: still high, no new edge
        #expect(model.level(of: .int1))
        _ = try driver.read()
        #expect(!model.level(of: .int1), "reading the sample lowers it")
        #expect(model.sampleInstant(after: time.nanoseconds)! - time.nanoseconds <= 2_500_000)
    }

    @Test("the LIS3DH's INT2 cannot carry data ready: a configuration error that names INT1")
    func lis3dhInt2Refused() throws {
        let (driver, _, _) = try partModel(.lis3dh)
        #expect {
            try driver.configure(DeviceConfiguration(range: 2, rate: 100, interruptPin: .int2))
        } throws: { error in
            let error = error as? DriverError
            return error?.exitCode == 78 && "\(error!)".contains("cannot put data-ready on its INT2 pin") && "\(error!)".contains("interrupt-pin = int1")
        }
    }

    @Test("the watermark on INT1 (LIS3DH): up while the FIFO holds more than the watermark, down once drained")
    func watermark() throws {
        let (driver, model, time) = try partModel(.lis3dh)
        try driver.configure(DeviceConfiguration(range: 2, rate: 100, fifoWatermark: 8, interruptPin: .int1))
        #expect(model.peek(0x22) == 0x04, "CTRL_REG3 I1_WTM")
        var drained: [Reading] = []
        try driver.readFIFO(count: try driver.readFIFOStatus().level, into: &drained)
        #expect(!model.level(of: .int1))
        time.advance(seconds: 0.075)  // 7 or 8 samples
        let level = model.fifoLevel
        #expect(model.level(of: .int1) == (level > driver.fifoWatermark - 1), "level \(level)")
        time.advance(seconds: 0.05)
        #expect(model.level(of: .int1))
        try driver.readFIFO(count: try driver.readFIFOStatus().level, into: &drained)
        #expect(!model.level(of: .int1))
    }

    @Test("INT_POLARITY, H_LACTIVE: a chip set active low shows the inverse level", arguments: ["LIS3DH", "LSM6DSO"])
    func activeLow(part: String) throws {
        let profile = try #require(ChipProfile.named(part))
        let (driver, model, time) = try partModel(profile)
        try driver.configure(DeviceConfiguration(range: 2, rate: profile.allRates[2], interruptPin: .int1))
        let pins = try #require(profile.interruptPins)
        time.advance(seconds: 0.2)
        #expect(model.level(of: .int1), "a sample waits: high")
        let register = pins.activeHigh.field.register
        try model.writeRegister(register, pins.activeHigh.field.set(1 - pins.activeHigh.value, in: model.peek(register)))
        #expect(!model.level(of: .int1), "active low: the same state shows low")
    }
}

