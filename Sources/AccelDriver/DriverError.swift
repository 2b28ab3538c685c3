// SPDX-License-Identifier: Apache-2.0
/// Failures that are about the chip, not the bus.
public enum DriverError: Error, Equatable, CustomStringConvertible, Sendable {
    case unknownChip(location: String, whoAmI: UInt8, suggestion: String?)
    case unsupportedRange(Int, available: [Int])
    case unsupportedRate(Int, available: [Int])
    case configurationMismatch(location: String, register: UInt8, wrote: UInt8, readBack: UInt8)
    case bootDidNotFinish(location: String, milliseconds: Int)
    case noData(location: String, waitedMilliseconds: Int)

    public var description: String {
        switch self {
        case .unknownChip(let location, let id, let suggestion):
            var text = "the chip at \(location) answered WHO_AM_I \(hex(id)), which is not a part this acceld drives (it drives "
                + ChipProfile.supported.map { "\($0.parts.joined(separator: "/")) with \(hex($0.whoAmI))" }.joined(separator: ", ") + ")"
            if let suggestion { text += "; \(hex(id)) suggests \(suggestion)" }
            if id == 0x00 || id == 0xFF { text += "; \(hex(id)) usually means a floating or shorted bus line, not a chip" }
            return text
        case .unsupportedRange(let value, let available):
            return "range ±\(value) g is not available on this chip: choose one of " + available.map { "±\($0) g" }.joined(separator: ", ")
        case .unsupportedRate(let value, let available):
            return "rate \(value) Hz is not available on this chip: choose one of " + available.map { "\($0) Hz" }.joined(separator: ", ")
        case .configurationMismatch(let location, let register, let wrote, let readBack):
            return "the chip at \(location) did not keep its configuration: register \(hex(register)) was written \(hex(wrote)) but reads back \(hex(readBack)); another program may be writing to it, or the chip is not what WHO_AM_I claims"
        case .bootDidNotFinish(let location, let ms):
            return "the chip at \(location) did not finish BOOT within \(ms) ms; power-cycle the board"
        case .noData(let location, let ms):
            return "the chip at \(location) produced no new sample in \(ms) ms although it is powered up; it may be stuck: power-cycle it"
        }
    }

    public var exitCode: Int32 {
        switch self {
        case .unknownChip: 65                        // EX_DATAERR: wrong chip
        case .unsupportedRange, .unsupportedRate: 64 // EX_USAGE
        case .configurationMismatch, .bootDidNotFinish, .noData: 74  // EX_IOERR
        }
    }
}
