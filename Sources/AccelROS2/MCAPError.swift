// SPDX-License-Identifier: Apache-2.0
import AccelCore

/// Why `MCAPReader` refused a file: what was wrong, where, and what to do.
public enum MCAPError: Error, Equatable, CustomStringConvertible {
    /// The first eight bytes are not MCAP's magic.
    case notMCAP(start: [UInt8])
    /// The file ended between records, before Data End or the Footer.
    case truncated(length: Int)
    /// Fewer bytes than a record's opcode and length.
    case cutRecord(offset: Int, available: Int, inChunk: Bool)
    /// A record whose length runs past the end of the file or its chunk.
    case pastEnd(offset: Int, opcode: UInt8, length: UInt64, available: Int, inChunk: Bool)
    /// A record too short for one of its fields.
    case malformed(offset: Int, opcode: UInt8, field: String)
    case compressed(offset: Int, compression: String)
    /// A chunk whose records do not match its CRC-32.
    case checksum(offset: Int)

    private static let cutShort = "record it again, or keep what is whole with the mcap CLI's `mcap recover FILE -o WHOLE.mcap`"

    public var description: String {
        switch self {
        case .notMCAP(let start):
            "not an MCAP file: it \(start.isEmpty ? "is empty" : "begins with '\(MCAPError.shown(start))'"), where an MCAP file "
                + "begins with '\\x89MCAP0\\r\\n'; acceld replay plays MCAP bags (accelctl record --format mcap) and CSV traces "
                + "(docs/TRACE-FORMAT.md)"
        case .truncated(let length):
            "the file ends at byte \(length) without MCAP's end of data (a Data End or Footer record): it was cut short, "
                + "as a copy of a recording still being written is; \(MCAPError.cutShort)"
        case .cutRecord(let offset, let available, let inChunk):
            "\(inChunk ? "a chunk" : "the file") ends at byte \(offset + available), inside the opcode and length of a record at byte "
                + "\(offset): it is cut short or damaged; \(MCAPError.cutShort)"
        case .pastEnd(let offset, let opcode, let length, let available, let inChunk):
            "the \(MCAPError.name(opcode)) record at byte \(offset) says it holds \(length) bytes, but only \(available) follow in "
                + "\(inChunk ? "its chunk" : "the file"): it is cut short or damaged; \(MCAPError.cutShort)"
        case .malformed(let offset, let opcode, let field):
            "the \(MCAPError.name(opcode)) record at byte \(offset) is too short for its \(field): the file is damaged; \(MCAPError.cutShort)"
        case .compressed(let offset, let compression):
            "the chunk at byte \(offset) is compressed with \(compression), and acceld reads uncompressed chunks only (as accelctl, "
                + "and rosbag2 by default, write them): make an uncompressed copy with the mcap CLI, "
                + "`mcap decompress FILE -o PLAIN.mcap`, and replay that"
        case .checksum(let offset):
            "the chunk at byte \(offset) does not match its CRC-32: its messages are damaged; \(MCAPError.cutShort)"
        }
    }

    /// A record's name as the specification gives it.
    static func name(_ opcode: UInt8) -> String {
        switch MCAP.Opcode(rawValue: opcode) {
        case .header?: "Header"
        case .footer?: "Footer"
        case .schema?: "Schema"
        case .channel?: "Channel"
        case .message?: "Message"
        case .chunk?: "Chunk"
        case .messageIndex?: "Message Index"
        case .chunkIndex?: "Chunk Index"
        case .statistics?: "Statistics"
        case .summaryOffset?: "Summary Offset"
        case .dataEnd?: "Data End"
        case nil: "opcode \(hex(opcode))"
        }
    }

    /// Bytes as a person reads them: printable ASCII as it is, the rest escaped.
    static func shown(_ bytes: [UInt8]) -> String {
        bytes.map { byte in
            switch byte {
            case 0x0A: "\\n"
            case 0x0D: "\\r"
            case 0x20...0x7E where byte != 0x27 && byte != 0x5C: String(UnicodeScalar(byte))
            default: "\\x" + String(byte >> 4, radix: 16) + String(byte & 0xF, radix: 16)
            }
        }.joined()
    }
}
