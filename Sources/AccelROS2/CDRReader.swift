// SPDX-License-Identifier: Apache-2.0
import AccelCore

/// Reads a message in plain CDR (XCDR1), as `CDRWriter` writes it and as
/// rosbag2 stores ROS 2's messages: the 4-byte encapsulation header, then
/// each field at its natural alignment counted from the end of that
/// header, in the byte order the header names. Every read is checked
/// against the message's length: the bytes come from a file.
public struct CDRReader {
    private let bytes: ArraySlice<UInt8>
    private let littleEndian: Bool
    /// Offset of the next field from the message's start; alignment counts
    /// from the end of the header, at 4.
    private var position = 4

    public init(_ bytes: ArraySlice<UInt8>) throws(CDRError) {
        guard bytes.count >= 4 else { throw .tooShort(field: "encapsulation header", offset: 0, needed: 4, length: bytes.count) }
        let kind = (bytes[bytes.startIndex], bytes[bytes.startIndex + 1])
        // 0x0000 CDR_BE, 0x0001 CDR_LE; anything else (XCDR2, parameter
        // lists) aligns or frames fields otherwise.
        guard kind.0 == 0, kind.1 <= 1 else { throw .encapsulation(kind.0, kind.1) }
        self.bytes = bytes
        littleEndian = kind.1 == 1
    }

    /// The bytes left after the fields read so far.
    public var remaining: Int { bytes.count - position }

    private mutating func take(_ size: Int, alignment: Int, field: String) throws(CDRError) -> ArraySlice<UInt8> {
        let misplaced = (position - 4) % alignment
        let start = misplaced == 0 ? position : position + alignment - misplaced
        guard start <= bytes.count, size <= bytes.count - start else {
            throw .tooShort(field: field, offset: start, needed: size, length: bytes.count)
        }
        position = start + size
        return bytes[bytes.startIndex + start..<bytes.startIndex + start + size]
    }

    private mutating func integer<T: FixedWidthInteger>(_: T.Type, _ field: String) throws(CDRError) -> T {
        let raw = try take(MemoryLayout<T>.size, alignment: MemoryLayout<T>.size, field: field)
        var value: UInt64 = 0
        if littleEndian {
            for byte in raw.reversed() { value = value << 8 | UInt64(byte) }
        } else {
            for byte in raw { value = value << 8 | UInt64(byte) }
        }
        return T(truncatingIfNeeded: value)
    }

    public mutating func uint8(_ field: String) throws(CDRError) -> UInt8 { try integer(UInt8.self, field) }
    public mutating func int32(_ field: String) throws(CDRError) -> Int32 { try integer(Int32.self, field) }
    public mutating func uint32(_ field: String) throws(CDRError) -> UInt32 { try integer(UInt32.self, field) }
    public mutating func double(_ field: String) throws(CDRError) -> Double { Double(bitPattern: try integer(UInt64.self, field)) }

    /// A string: its length with the terminating NUL, the UTF-8, the NUL.
    public mutating func string(_ field: String) throws(CDRError) -> String {
        let offset = position
        let length = Int(try uint32(field))
        let text = try take(length, alignment: 1, field: field)
        guard text.last == 0 else { throw .unterminatedString(field: field, offset: offset) }
        return String(decoding: text.dropLast(), as: UTF8.self)
    }

    /// A fixed-size array of doubles (`float64[9]`).
    public mutating func doubles(_ count: Int, _ field: String) throws(CDRError) -> [Double] {
        var values: [Double] = []
        values.reserveCapacity(count)
        for index in 0..<count { values.append(try double("\(field)[\(index)]")) }
        return values
    }

    /// A sequence's element count, refused when even elements of
    /// `minimumSize` bytes each could not fit in what is left (a count
    /// read from damaged bytes must not size an allocation).
    public mutating func count(_ field: String, minimumSize: Int) throws(CDRError) -> Int {
        let offset = position
        let count = Int(try uint32(field))
        guard count <= remaining / max(minimumSize, 1) else {
            throw .tooShort(field: "\(field) (\(count) elements)", offset: offset, needed: count * minimumSize, length: bytes.count)
        }
        return count
    }
}

/// Why a CDR message could not be read, in words that say what to do.
public enum CDRError: Error, Equatable, CustomStringConvertible {
    /// The message ends before a field it should hold.
    case tooShort(field: String, offset: Int, needed: Int, length: Int)
    /// An encapsulation other than plain CDR.
    case encapsulation(UInt8, UInt8)
    /// A string whose last byte is not its NUL.
    case unterminatedString(field: String, offset: Int)

    public var description: String {
        switch self {
        case .tooShort(let field, let offset, let needed, let length):
            "the message is \(length) bytes, too short for its \(field) (\(needed) bytes from byte \(offset)): it was cut short, "
                + "or it is not the type its channel names; record it again"
        case .encapsulation(let high, let low):
            "its CDR encapsulation is \(hex(high)) \(hex(low)), not plain CDR (0x00 0x00 or 0x00 0x01) as ROS 2 stores its messages: "
                + "record it with rosbag2 or accelctl record --format mcap"
        case .unterminatedString(let field, let offset):
            "its \(field) (from byte \(offset)) does not end in the NUL a CDR string ends with: the message is damaged, "
                + "or it is not the type its channel names; record it again"
        }
    }
}
