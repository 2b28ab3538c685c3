// SPDX-License-Identifier: Apache-2.0
import AccelCore
import AccelParts
@testable import AccelDriver
import Testing

/// The LSM6DSL's and LSM6DS3's FIFO on the chip model: untagged 16-bit
/// words in the pattern Gx Gy Gz Ax Ay Az, FIFO_STATUS1-4, the wrap of
/// FIFO_DATA_OUT_H to _L, through the driver.
@Suite("Pattern FIFO (LSM6DSL, LSM6DS3)")
struct PatternFIFOTests {
    @Test("stream mode batches both sensors undecimated: each sample's rate beside its own acceleration, in order, in one transfer",
          arguments: [ChipProfile.lsm6dsl, .lsm6ds3])
    func pairedInOrder(part: ChipProfile) throws {
        let (driver, model, time) = try streamingSixAxis(part, watermark: 16)
        #expect(model.peek(0x08) == 0x09 && model.peek(0x0A) == 0x16 && model.peek(0x06) == 96,
                "both decimations 1, ODR_FIFO 26 Hz, continuous, 96 words")
        time.advance(seconds: 20 / 26.0)
        let status = try driver.readFIFOStatus()
        #expect(status.level == 20 && !status.overrun && status.raw & 0x0FFF == 120 && status.raw & 0x8000 != 0 && status.partial == 0,
                "\(hex(status.raw))")
        var samples: [Reading] = []
        let before = model.counters.transactions
        try driver.readFIFO(count: status.level, into: &samples)
        #expect(model.counters.transactions - before == 1, "240 bytes from FIFO_DATA_OUT_L, wrapping at 0x3F")
        #expect(samples.count == 20 && rateMismatch(samples, driver) < 0.005, "\(rateMismatch(samples, driver))")
        let steps = zip(samples.dropFirst(), samples).map { $0.counts.x - $1.counts.x }
        #expect(steps.allSatisfy { abs($0 - 315) <= 1 }, "consecutive samples, oldest first: \(steps)")
        let empty = try driver.readFIFOStatus()
        #expect(empty.level == 0 && empty.raw & 0x1000 != 0, "FIFO_EMPTY")
    }

    @Test("an SMBus-only adapter reads whole words in 32-byte chunks, the same samples")
    func smbusFallback() throws {
        let (driver, model, time) = try streamingSixAxis(.lsm6dsl, watermark: 16, maximumRead: 32)
        time.advance(seconds: 8 / 26.0)
        var samples: [Reading] = []
        let status = try driver.readFIFOStatus()
        let before = model.counters.transactions
        try driver.readFIFO(count: status.level, into: &samples)
        #expect(model.counters.transactions - before == 3, "96 bytes as 32 + 32 + 32")
        #expect(samples.count == 8 && rateMismatch(samples, driver) < 0.005)
    }

    @Test("a full FIFO overwrites word by word: DIFF_FIFO reads 0 with FIFO_OVER_RUN, the broken pattern's rest is dropped, the newest whole samples come in order, each with its rate",
          arguments: [ChipProfile.lsm6dsl, .lsm6ds3])
    func overrun(part: ChipProfile) throws {
        let (driver, model, time) = try streamingSixAxis(part, rate: 416, watermark: 16)
        let fifo = try #require(part.fifo)
        let lostBefore = model.counters.samplesLost, madeBefore = model.counters.samplesProduced
        time.advance(seconds: 3)
        let status = try driver.readFIFOStatus()
        // 2048 words hold 341 samples and 2 words; 4096, 682 and 4.
        let broken = fifo.depth % 6
        #expect(status.overrun && status.raw & 0x0FFF == 0 && status.partial == broken && status.level == fifo.depth / 6, "\(hex(status.raw))")
        #expect(model.counters.samplesLost - lostBefore == model.counters.samplesProduced - madeBefore - fifo.depth / 6)
        var samples: [Reading] = []
        try driver.readFIFO(count: status.level, into: &samples)
        #expect(samples.count == fifo.depth / 6 && rateMismatch(samples, driver) < 0.005)
        #expect(zip(samples.dropFirst(), samples).allSatisfy { $0.counts.x > $1.counts.x }, "in order")
        let after = try driver.readFIFOStatus()
        #expect(!after.overrun && after.level == 0 && after.partial == 0)
    }

    @Test("a pattern word out of range is an error, never a level")
    func impossiblePattern() throws {
        let (driver, model, _) = try streamingSixAxis(.lsm6dsl, watermark: 16)
        model.fifoHeadPosition = 7
        #expect(throws: Accelerometer.FIFOStatusError.self) { try driver.readFIFOStatus() }
    }

    @Test("the watermark is set in words, at most 42 samples (FTH's high bits stay clear); 0 goes back to bypass and empties the FIFO")
    func watermark() throws {
        let (driver, model, time) = try streamingSixAxis(.lsm6dsl, watermark: 16)
        time.advance(seconds: 0.2)
        try driver.setFIFOWatermark(100)
        #expect(model.peek(0x06) == 252 && model.peek(0x07) == 0)
        #expect(model.fifoLevel > 0, "stream to stream keeps the queue")
        try driver.setFIFOWatermark(0)
        #expect(model.peek(0x0A) == 0 && model.peek(0x08) == 0 && model.fifoLevel == 0)
        #expect(try driver.configurationIsIntact())
    }
}
