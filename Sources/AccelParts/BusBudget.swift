// SPDX-License-Identifier: Apache-2.0

/// What reading a part at a rate costs on an I2C bus, counted in bits on
/// the wire: whether a bus's clock carries it, and the FIFO watermark that
/// makes it fit. Every read is one combined transaction (START, address
/// and write, the register, repeated START, address and read, the bytes,
/// STOP), each byte nine clocks with its acknowledge. A batch of the FIFO
/// costs its status read and one data read; a part without a FIFO, one
/// burst per sample (the status and the outputs).
public struct BusBudget: Sendable, Equatable {
    /// The standard clocks: Standard mode, Fast mode (the family's
    /// datasheets stop here), Fast-mode Plus.
    public static let standardClocks = [100_000, 400_000, 1_000_000]
    /// The share of a bus's clocks a configuration may take: the rest is
    /// for clock stretching, a late read's catching up, and the bus's other
    /// devices.
    public static let usableShare = 0.8

    public let part: String
    public let rate: Int
    /// Bytes of one sample in the FIFO (all its entries), or of the burst
    /// without one.
    public let bytesPerSample: Int
    /// Bytes of the FIFO's status read; 0 without a FIFO.
    public let statusBytes: Int
    /// The largest watermark the FIFO takes; 0 without a FIFO.
    public let largestWatermark: Int

    public init(profile: ChipProfile, rate: Int) {
        part = profile.name
        self.rate = rate
        if let fifo = profile.fifo {
            bytesPerSample = fifo.entriesPerSample * fifo.entryBytes
            statusBytes = fifo.statusLength
            largestWatermark = fifo.watermarkLimit
        } else {
            bytesPerSample = profile.burstLength
            statusBytes = 0
            largestWatermark = 0
        }
    }

    /// Clocks of one read of `bytes`: 3 for START, repeated START and STOP,
    /// 9 for each of the two address bytes, the register and every byte read.
    public static func readBits(_ bytes: Int) -> Int { 3 + 9 * (3 + bytes) }

    /// Bits per second at `watermark` (samples per batch; at most the FIFO's).
    public func bitsPerSecond(watermark: Int) -> Double {
        guard largestWatermark > 0 else { return Double(rate * Self.readBits(bytesPerSample)) }
        let batch = max(1, min(watermark, largestWatermark))
        let perBatch = Self.readBits(statusBytes) + Self.readBits(batch * bytesPerSample)
        return Double(rate) / Double(batch) * Double(perBatch)
    }

    /// The share of a `clock` Hz bus the reads take at `watermark`.
    public func share(clock: Int, watermark: Int) -> Double { bitsPerSecond(watermark: watermark) / Double(clock) }

    /// The smallest watermark whose reads fit in the usable share of a
    /// `clock` Hz bus; nil when none does (a part without a FIFO: 0 when
    /// its bursts fit).
    public func smallestWatermark(clock: Int) -> Int? {
        let usable = Self.usableShare * Double(clock)
        guard largestWatermark > 0 else { return bitsPerSecond(watermark: 0) <= usable ? 0 : nil }
        return (1...largestWatermark).first { bitsPerSecond(watermark: $0) <= usable }
    }

    /// The slowest standard clock that carries the rate (at the largest
    /// watermark); nil when not even Fast-mode Plus does.
    public var slowestClock: Int? {
        Self.standardClocks.first { smallestWatermark(clock: $0) != nil }
    }

    /// The part's fastest rate among `rates` that a `clock` Hz bus carries.
    public static func fastestRate(profile: ChipProfile, among rates: [Int], clock: Int) -> Int? {
        rates.sorted().last { BusBudget(profile: profile, rate: $0).smallestWatermark(clock: clock) != nil }
    }
}

/// "100 kHz", "1 MHz": a clock as people write it.
public func clockText(_ hertz: Int) -> String {
    hertz >= 1_000_000 && hertz % 1_000_000 == 0 ? "\(hertz / 1_000_000) MHz" : "\(hertz / 1_000) kHz"
}
