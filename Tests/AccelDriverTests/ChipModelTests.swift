// SPDX-License-Identifier: Apache-2.0
import Testing
import AccelCore
@testable import AccelDriver

#if canImport(Glibc)
import Glibc
#endif

@Suite("Chip model behaves like the datasheet")
struct ChipModelTests {
    @Test("resets powered down with CTRL_REG1 = 0x07 and WHO_AM_I = 0x3B, and makes no data")
    func resetState() throws {
        let (model, time) = stillModel()
        #expect(try model.readRegister(0x0F) == 0x3B)
        #expect(try model.readRegister(0x20) == 0x07)
        #expect(try model.readRegister(0x21) == 0x00)
        time.advance(seconds: 1)
        #expect(try model.readRegister(0x27) == 0x00)
        #expect(model.counters.samplesProduced == 0)
    }

    @Test("writes to read-only and reserved registers are ignored and recorded")
    func readOnlyWrites() throws {
        let (model, _) = stillModel()
        try model.writeRegister(0x0F, 0x00)
        try model.writeRegister(0x27, 0xFF)
        try model.writeRegister(0x10, 0x55)
        #expect(try model.readRegister(0x0F) == 0x3B)
        #expect(try model.readRegister(0x27) == 0x00)
        #expect(model.ignoredWrites.map(\.register) == [0x0F, 0x27, 0x10])
    }

    @Test("data appears only 3/ODR after power-up, then at the ODR")
    func turnOnTime() throws {
        let (model, time) = stillModel()
        try model.writeRegister(0x20, 0x47)
        time.advance(seconds: 0.025)
        #expect(try model.readRegister(0x27) & 0x08 == 0, "no valid data before 3/ODR = 30 ms")
        time.advance(seconds: 0.006)
        #expect(try model.readRegister(0x27) & 0x08 != 0)
        time.advance(seconds: 1)
        #expect(model.counters.samplesProduced == 1, "samples are made lazily, on the next transaction")
        _ = try model.readRegister(0x27)
        #expect(model.counters.samplesProduced == 101)
    }

    @Test("reading an axis clears its data-ready bit only")
    func perAxisClear() throws {
        let (model, time) = stillModel()
        try model.writeRegister(0x20, 0x47)
        time.advance(seconds: 0.031)
        #expect(try model.readRegister(0x27) == 0x0F)
        _ = try model.readRegister(0x29)
        #expect(try model.readRegister(0x27) == 0x0E)
        _ = try model.readRegister(0x2B)
        _ = try model.readRegister(0x2D)
        #expect(try model.readRegister(0x27) == 0x00)
    }

    @Test("overrun sets ZYXOR when reads are slower than the ODR, and counts the lost samples")
    func overrun() throws {
        let (model, time) = stillModel()
        try model.writeRegister(0x20, 0x47)
        time.advance(seconds: 0.031)
        _ = try model.readBlock(from: 0xA7, count: 7)
        time.advance(seconds: 0.025)  // two more samples: the first is overwritten unread
        let status = Status(rawValue: try model.readRegister(0x27))
        #expect(status.contains(.overrun))
        #expect(status.contains(.dataReady))
        #expect(model.counters.samplesLost == 1)
        let burst = try model.readBlock(from: 0xA7, count: 7)
        #expect(burst[0] == 0xFF)
        #expect(try model.readRegister(0x27) == 0x00, "reading every output clears DA and OR")
    }

    @Test("a burst without the auto-increment bit returns STATUS seven times")
    func autoIncrementPitfall() throws {
        let (model, time) = stillModel(Vector3(0.5, -0.5, 1))
        try model.writeRegister(0x20, 0x47)
        time.advance(seconds: 0.031)
        let wrong = try model.readBlock(from: 0x27, count: 7)
        #expect(wrong == [UInt8](repeating: 0x0F, count: 7))
        let right = try model.readBlock(from: 0xA7, count: 7)
        #expect(right[0] == 0x0F)
        #expect([right[2], right[4], right[6]].map { Int8(bitPattern: $0) } == [28, -28, 56])
        #expect([right[1], right[3], right[5]] == [0, 0, 0], "dummies between the outputs")
    }

    @Test("outputs are quantised to the range's digit and clipped at -128..127", arguments: [
        (2, Vector3(1.0, -3.0, 0.5), [56, -128, 28]),
        (8, Vector3(1.0, -3.0, 10.0), [14, -42, 127]),
    ])
    func quantisation(range: Int, force: Vector3, digits: [Int]) throws {
        let (model, time) = stillModel(force)
        try model.writeRegister(0x20, range == 8 ? 0x67 : 0x47)
        time.advance(seconds: 0.031)
        let burst = try model.readBlock(from: 0xA7, count: 7)
        #expect([burst[2], burst[4], burst[6]].map { Int(Int8(bitPattern: $0)) } == digits)
    }

    @Test("offset, sensitivity error and seeded noise are applied, and the same seed repeats exactly")
    func imperfections() throws {
        var flawed = ChipModel.Imperfections()
        flawed.offset = Vector3(0.036, 0, 0)
        flawed.sensitivityError = Vector3(0, 0, 0.1)
        let (model, time) = stillModel(Vector3(0, 0, 1), imperfections: flawed)
        try model.writeRegister(0x20, 0x47)
        time.advance(seconds: 0.031)
        let burst = try model.readBlock(from: 0xA7, count: 7)
        #expect(Int8(bitPattern: burst[2]) == 2, "36 mg of offset is 2 digits")
        #expect(Int8(bitPattern: burst[6]) == 61, "1.1 g reads 61 digits")

        func noisyRun(seed: UInt64) throws -> [UInt8] {
            var noisy = ChipModel.Imperfections()
            noisy.noise = 0.02
            noisy.seed = seed
            let (m, t) = stillModel(Vector3(0, 0, 1), imperfections: noisy)
            try m.writeRegister(0x20, 0x47)
            var zs: [UInt8] = []
            for _ in 0..<200 {
                t.advance(seconds: 0.01)
                zs.append(try m.readBlock(from: 0xA7, count: 7)[6])
            }
            return zs
        }
        let a = try noisyRun(seed: 1), b = try noisyRun(seed: 1), c = try noisyRun(seed: 2)
        #expect(a == b)
        #expect(a != c)
        let values = a.dropFirst(3).map { Double(Int8(bitPattern: $0)) * 0.018 - 1 }
        let rms = (values.map { $0 * $0 }.reduce(0, +) / Double(values.count)).squareRoot()
        #expect(rms > 0.012 && rms < 0.03, "20 mg RMS noise, quantised (got \(rms))")
    }

    @Test("STP deflects X negative and Y, Z positive by the middle of the published limits (17 digits); STM the other way")
    func selfTestDeflection() throws {
        let (model, time) = stillModel()
        try model.writeRegister(0x20, 0x47)
        time.advance(seconds: 0.031)
        let before = try model.readBlock(from: 0xA7, count: 7)
        try model.writeRegister(0x20, 0x57)
        time.advance(seconds: 0.011)
        let plus = try model.readBlock(from: 0xA7, count: 7)
        try model.writeRegister(0x20, 0x4F)
        time.advance(seconds: 0.011)
        let minus = try model.readBlock(from: 0xA7, count: 7)
        func delta(_ a: [UInt8], _ b: [UInt8], _ i: Int) -> Int { Int(Int8(bitPattern: a[i])) - Int(Int8(bitPattern: b[i])) }
        #expect([delta(plus, before, 2), delta(plus, before, 4), delta(plus, before, 6)] == [-17, 17, 17])
        #expect([delta(minus, before, 2), delta(minus, before, 4), delta(minus, before, 6)] == [17, -17, -17])
    }

    @Test("BOOT reads back set, then clears itself")
    func bootClears() throws {
        let (model, time) = stillModel()
        try model.writeRegister(0x21, 0x40)
        #expect(try model.readRegister(0x21) == 0x40)
        time.advance(seconds: 0.010)
        #expect(try model.readRegister(0x21) == 0x00)
    }

    @Test("FDS makes the outputs read about 0 g at rest (the high-pass pitfall)")
    func highPassOutputs() throws {
        let (model, time) = stillModel()
        try model.writeRegister(0x20, 0x47)
        try model.writeRegister(0x21, 0x10)
        for _ in 0..<300 {
            time.advance(seconds: 0.01)
            _ = try model.readBlock(from: 0xA7, count: 7)
        }
        let burst = try model.readBlock(from: 0xA7, count: 7)
        #expect(abs(Int(Int8(bitPattern: burst[6]))) <= 1)
    }

    @Test("injected faults: N failing transactions with an errno, a vanished chip, a reset to power-down")
    func faults() throws {
        let (model, _) = stillModel()
        try model.writeRegister(0x20, 0x47)
        model.failNext(2, errno: EIO)
        for _ in 0..<2 {
            #expect(throws: BusError.transfer(path: "chip model at 0x1c", operation: "transfer", errno: EIO)) {
                try model.readRegister(0x20)
            }
        }
        #expect(try model.readRegister(0x20) == 0x47)
        model.present = false
        #expect(throws: BusError.noAnswer(path: "chip model at 0x1c", address: 0x1C)) { try model.readRegister(0x0F) }
        model.present = true
        model.resetToPowerDown()
        #expect(try model.readRegister(0x20) == 0x07)
        #expect(model.counters.failedTransactions == 3)
    }

    @Test("a timed fault fails every transaction until the clock passes it")
    func timedFault() throws {
        let (model, time) = stillModel()
        model.fail(forSeconds: 0.2, errno: EIO)
        time.advance(seconds: 0.1)
        #expect(throws: BusError.self) { try model.readRegister(0x0F) }
        time.advance(seconds: 0.1)
        #expect(try model.readRegister(0x0F) == 0x3B)
    }

    @Test("a stuck converter never sets ZYXDA")
    func stuckDataReady() throws {
        let (model, time) = stillModel()
        try model.writeRegister(0x20, 0x47)
        model.dataReadyStuck = true
        time.advance(seconds: 1)
        #expect(try model.readRegister(0x27) == 0)
    }
}
