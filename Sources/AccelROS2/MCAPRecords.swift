// SPDX-License-Identifier: Apache-2.0

/// MCAP's framing (mcap.dev/spec, version 0): the magic, records of an
/// opcode, a little-endian length and a body, and the body's primitives.
enum MCAP {
    static let magic: [UInt8] = [0x89, 0x4D, 0x43, 0x41, 0x50, 0x30, 0x0D, 0x0A]  // \x89MCAP0\r\n

    enum Opcode: UInt8 {
        case header = 0x01, footer = 0x02, schema = 0x03, channel = 0x04, message = 0x05, chunk = 0x06
        case messageIndex = 0x07, chunkIndex = 0x08, statistics = 0x0B, summaryOffset = 0x0E, dataEnd = 0x0F
    }

    static func record(_ opcode: Opcode, _ body: Body) -> [UInt8] {
        var out = [opcode.rawValue]
        out.reserveCapacity(9 + body.bytes.count)
        withUnsafeBytes(of: UInt64(body.bytes.count).littleEndian) { out.append(contentsOf: $0) }
        return out + body.bytes
    }

    /// A record's body, field by field.
    struct Body {
        var bytes: [UInt8] = []

        mutating func integer<T: FixedWidthInteger>(_ value: T) {
            withUnsafeBytes(of: value.littleEndian) { bytes.append(contentsOf: $0) }
        }
        mutating func string(_ value: String) {
            integer(UInt32(value.utf8.count))
            bytes.append(contentsOf: value.utf8)
        }
        /// Length-prefixed bytes (a schema's data).
        mutating func data(_ value: [UInt8]) {
            integer(UInt32(value.count))
            bytes.append(contentsOf: value)
        }
        /// A map or an array: its entries' byte length, then the entries.
        mutating func prefixed(_ entries: (inout Body) -> Void) {
            var inner = Body()
            entries(&inner)
            data(inner.bytes)
        }
        mutating func map(_ pairs: [(String, String)]) {
            prefixed { body in for (key, value) in pairs.sorted(by: { $0.0 < $1.0 }) { body.string(key); body.string(value) } }
        }
    }
}

/// CRC-32 as zlib computes it (IEEE 802.3, reflected), which MCAP's chunk
/// and summary checksums use. Twenty lines rather than a C module for zlib.
struct CRC32 {
    private static let table: [UInt32] = (0..<256).map { n in
        (0..<8).reduce(UInt32(n)) { c, _ in c & 1 == 1 ? 0xEDB8_8320 ^ (c >> 1) : c >> 1 }
    }
    private var state: UInt32 = 0xFFFF_FFFF

    mutating func update<C: Collection>(_ bytes: C) where C.Element == UInt8 {
        for byte in bytes { state = CRC32.table[Int((state ^ UInt32(byte)) & 0xFF)] ^ (state >> 8) }
    }

    var value: UInt32 { state ^ 0xFFFF_FFFF }

    static func of<C: Collection>(_ bytes: C) -> UInt32 where C.Element == UInt8 {
        var crc = CRC32()
        crc.update(bytes)
        return crc.value
    }
}
