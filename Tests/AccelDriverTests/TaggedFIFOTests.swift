// SPDX-License-Identifier: Apache-2.0
import AccelCore
import AccelParts
@testable import AccelDriver
import Testing

/// The LSM6DSO's tagged FIFO on the chip model: both sensors batched,
/// FIFO_STATUS1/2, the 7-byte words and their wrap, through the driver.
/// x rises 0.5 g and the rate about x 0.5 rad/s each second: at 26 Hz a
/// sample's step (19 mg, 1.1 dps) is many digits of either, so a rate
/// paired with the wrong sample shows.
final class FIFORamps: MotionSource {
    var name: String { "ramps" }
    var duration: Double { 60 }
    func specificForce(at t: Double) -> Vector3 { Vector3(0.5 * t, 0, 1) }
    func rotationRate(at t: Double) -> Vector3 { Vector3(0.5 * t, 0, 0) }
}

/// A six-axis part streaming both sensors into its FIFO, drained of what turn-on left.
func streamingSixAxis(_ part: ChipProfile, rate: Int = 26, watermark: Int, maximumRead: Int = Int.max) throws -> (Accelerometer, ChipModel, VirtualTime) {
    let (driver, model, time) = try partModel(part, motion: FIFORamps())
    model.maximumReadLength = maximumRead
    try driver.configure(DeviceConfiguration(range: 2, rate: rate, fifoWatermark: watermark))
    var drained: [Reading] = []
    try driver.readFIFO(count: try driver.readFIFOStatus().level, into: &drained)
    return (driver, model, time)
}

/// The largest difference between a reading's rate in rad/s and its force
/// in g, which the ramps make equal.
func rateMismatch(_ readings: [Reading], _ driver: Accelerometer) -> Double {
    readings.map { abs(driver.rotationRate($0.rotation!)!.x - driver.chipAcceleration($0.counts).x) }.max() ?? 0
}

@Suite("Tagged FIFO (LSM6DSO)")
struct TaggedFIFOTests {

    @Test("stream mode batches both sensors: each sample's rate is paired with its own acceleration, in order, in one transfer")
    func pairedInOrder() throws {
        let (driver, model, time) = try streamingSixAxis(.lsm6dso, watermark: 16)
        #expect(model.peek(0x09) == 0x22 && model.peek(0x0A) == 0x06 && model.peek(0x07) == 32, "BDR 26 Hz for both, continuous, 32 words")
        time.advance(seconds: 20 / 26.0)
        let status = try driver.readFIFOStatus()
        #expect(status.level == 20 && !status.overrun && status.raw & 0x3FF == 40 && status.raw & 0x8000 != 0, "\(hex(status.raw))")
        var samples: [Reading] = []
        let before = model.counters.transactions
        try driver.readFIFO(count: status.level, into: &samples)
        #expect(model.counters.transactions - before == 1, "280 bytes from FIFO_DATA_OUT_TAG, wrapping at 0x7E")
        #expect(samples.count == 20 && samples.allSatisfy { $0.rotation != nil })
        #expect(rateMismatch(samples, driver) < 0.005, "a rate beside another sample's force: \(rateMismatch(samples, driver))")
        let steps = zip(samples.dropFirst(), samples).map { $0.counts.x - $1.counts.x }
        #expect(steps.allSatisfy { abs($0 - 315) <= 1 }, "consecutive samples, oldest first: \(steps)")
        #expect(try driver.readFIFOStatus().level == 0)
    }

    @Test("an SMBus-only adapter reads whole words in 28-byte chunks, the same pairs")
    func smbusFallback() throws {
        let (driver, model, time) = try streamingSixAxis(.lsm6dso, watermark: 16, maximumRead: 32)
        time.advance(seconds: 10 / 26.0)
        var samples: [Reading] = []
        let before = model.counters.transactions
        try driver.readFIFO(count: try driver.readFIFOStatus().level, into: &samples)
        #expect(model.counters.transactions - before == 1 + 5, "the status, then 140 bytes as 28 + 28 + 28 + 28 + 28")
        #expect(samples.count == 10 && rateMismatch(samples, driver) < 0.005)
    }

    @Test("a full FIFO holds 256 samples: the oldest are overwritten and counted, the overrun latched until read, the newest 256 in order")
    func overrun() throws {
        let (driver, model, time) = try streamingSixAxis(.lsm6dso, rate: 416, watermark: 16)
        let lostBefore = model.counters.samplesLost, madeBefore = model.counters.samplesProduced
        time.advance(seconds: 1)
        let status = try driver.readFIFOStatus()
        #expect(status.overrun && status.level == 256, "\(hex(status.raw))")
        #expect(model.counters.samplesLost - lostBefore == model.counters.samplesProduced - madeBefore - 256)
        var samples: [Reading] = []
        try driver.readFIFO(count: status.level, into: &samples)
        #expect(samples.count == 256 && samples.allSatisfy { $0.rotation != nil })
        #expect(zip(samples.dropFirst(), samples).allSatisfy { $0.counts.x > $1.counts.x }, "the newest 256, in order")
        #expect(!(try driver.readFIFOStatus().overrun), "FIFO_OVR_LATCHED clears once read")
    }

    @Test("a pair split between two reads keeps its rate: the gyroscope's word waits for its accelerometer's")
    func pairAcrossReads() throws {
        let (driver, model, time) = try streamingSixAxis(.lsm6dso, watermark: 16)
        time.advance(seconds: 4 / 26.0)
        var word = [UInt8](repeating: 0, count: 7)
        try word.withUnsafeMutableBytes { try model.readBlock(from: 0x78, into: $0) }  // a gyroscope word, read by someone else
        #expect(word[0] >> 3 == 1, "the FIFO starts with a gyroscope word")
        var samples: [Reading] = []
        let status = try driver.readFIFOStatus()
        #expect(status.level == 3, "7 words: 3 whole samples")
        try driver.readFIFO(count: status.level, into: &samples)
        #expect(samples.count == 3 && samples[0].rotation != nil, "the first lost its own rate and keeps the last one read; the read ends with the fourth's")
        #expect(rateMismatch(Array(samples.dropFirst()), driver) < 0.005)
        time.advance(seconds: 2 / 26.0)
        try driver.readFIFO(count: try driver.readFIFOStatus().level, into: &samples)
        #expect(samples.count == 2 && rateMismatch(samples, driver) < 0.005, "the fourth, with the rate read before: \(rateMismatch(samples, driver))")
    }

    @Test("the watermark is set in words, at most 127 samples (WTM8 stays clear); 0 goes back to bypass, stops batching and empties the FIFO")
    func watermark() throws {
        let (driver, model, time) = try streamingSixAxis(.lsm6dso, watermark: 16)
        time.advance(seconds: 0.2)
        try driver.setFIFOWatermark(200)
        #expect(model.peek(0x07) == 254 && model.peek(0x08) == 0)
        #expect(model.fifoLevel > 0, "stream to stream keeps the queue")
        try driver.setFIFOWatermark(0)
        #expect(model.peek(0x0A) == 0 && model.peek(0x09) == 0 && model.fifoLevel == 0)
        #expect(try driver.configurationIsIntact())
    }
}
