// SPDX-License-Identifier: Apache-2.0
import AccelCore
/// STATUS_REG bits (0x27), as the LIS302DL family defines them.
public struct Status: OptionSet, Sendable, Hashable {
    public let rawValue: UInt8
    public init(rawValue: UInt8) { self.rawValue = rawValue }

    /// A new sample overwrote one that was never read, on some axis.
    public static let overrun = Status(rawValue: 0x80)
    public static let zOverrun = Status(rawValue: 0x40)
    public static let yOverrun = Status(rawValue: 0x20)
    public static let xOverrun = Status(rawValue: 0x10)
    /// A new sample is available.
    public static let dataReady = Status(rawValue: 0x08)
    public static let zDataReady = Status(rawValue: 0x04)
    public static let yDataReady = Status(rawValue: 0x02)
    public static let xDataReady = Status(rawValue: 0x01)
}

/// One burst: the status byte and the outputs read in the same transaction.
public struct Reading: Sendable, Equatable {
    /// In the LIS family's terms, whatever the part's register says.
    public var status: Status
    public var counts: Counts
    /// The gyroscope's digits, on parts that have one.
    public var rotation: Counts?
    public init(status: Status, counts: Counts, rotation: Counts? = nil) {
        self.status = status
        self.counts = counts
        self.rotation = rotation
    }
}
