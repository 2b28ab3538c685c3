// SPDX-License-Identifier: Apache-2.0

/// Reads an MCAP file from its start, the inverse of `MCAPWriter`: the
/// magic, then records of an opcode, a little-endian length and a body,
/// with Schema, Channel and Message records at the top level or inside
/// uncompressed Chunks, until Data End or the Footer. The summary and the
/// indexes only help a reader seek, so they are skipped. Every length is
/// checked against what the file holds: the bytes may be anything.
public struct MCAPReader {
    public struct Schema: Sendable, Equatable {
        public let id: UInt16
        public let name: String
        public let encoding: String
    }

    public struct Channel: Sendable, Equatable {
        public let id: UInt16
        public let topic: String
        public let messageEncoding: String
        /// nil for schema 0 ("no schema") or one no Schema record declared.
        public let schema: Schema?
    }

    public struct Message: Sendable, Equatable {
        public let channel: UInt16
        public let sequence: UInt32
        public let logTime: UInt64
        public let publishTime: UInt64
        /// The message's bytes: a slice of the file's, not a copy.
        public let data: ArraySlice<UInt8>
    }

    /// The Header record's profile (`ros2`) and writing library.
    public private(set) var profile = ""
    public private(set) var library = ""
    /// Every channel, in the order the file declares them.
    public private(set) var channels: [Channel] = []
    /// The messages of the channels `keeping` chose, in the file's order.
    public private(set) var messages: [Message] = []
    private var schemas: [UInt16: Schema] = [:]
    private var kept: Set<UInt16> = []

    /// Reads `bytes`, keeping the messages of the channels `keep` chooses.
    public init(bytes: [UInt8], keeping keep: (Channel) -> Bool = { _ in true }) throws(MCAPError) {
        guard bytes.count >= 8, Array(bytes[0..<8]) == MCAP.magic else { throw .notMCAP(start: Array(bytes.prefix(8))) }
        guard try read(bytes[8...], inChunk: false, keep) else { throw .truncated(length: bytes.count) }
    }

    /// Reads the records of `region`, whose indices are the file's
    /// offsets; true when Data End or the Footer ended the data section.
    private mutating func read(_ region: ArraySlice<UInt8>, inChunk: Bool, _ keep: (Channel) -> Bool) throws(MCAPError) -> Bool {
        var offset = region.startIndex
        while offset < region.endIndex {
            let available = region.endIndex - offset
            guard available >= 9 else { throw .cutRecord(offset: offset, available: available, inChunk: inChunk) }
            let opcode = region[offset]
            let length = region[offset + 1..<offset + 9].reversed().reduce(UInt64(0)) { $0 << 8 | UInt64($1) }
            guard length <= UInt64(available - 9) else {
                throw .pastEnd(offset: offset, opcode: opcode, length: length, available: available - 9, inChunk: inChunk)
            }
            var record = Fields(region[offset + 9..<offset + 9 + Int(length)], offset: offset, opcode: opcode)
            offset = record.body.endIndex
            switch MCAP.Opcode(rawValue: opcode) {
            case .header? where !inChunk:
                profile = try record.string("profile")
                library = try record.string("library")
            case .schema?:
                let id = try record.integer(UInt16.self, "id")
                let schema = Schema(id: id, name: try record.string("name"), encoding: try record.string("encoding"))
                _ = try record.prefixed("data")
                schemas[id] = schemas[id] ?? schema
            case .channel?:
                try readChannel(&record, keep)
            case .message?:
                let channel = try record.integer(UInt16.self, "channel_id")
                let message = Message(channel: channel, sequence: try record.integer(UInt32.self, "sequence"),
                                      logTime: try record.integer(UInt64.self, "log_time"),
                                      publishTime: try record.integer(UInt64.self, "publish_time"), data: record.rest)
                if kept.contains(channel) { messages.append(message) }
            case .chunk? where !inChunk:
                try readChunk(&record, keep)
            case .dataEnd? where !inChunk, .footer? where !inChunk:
                return true
            default:
                continue  // indexes, statistics, attachments, metadata: not needed to read every message
            }
        }
        return false
    }

    private mutating func readChannel(_ record: inout Fields, _ keep: (Channel) -> Bool) throws(MCAPError) {
        let id = try record.integer(UInt16.self, "id")
        let schema = try record.integer(UInt16.self, "schema_id")
        let channel = Channel(id: id, topic: try record.string("topic"), messageEncoding: try record.string("message_encoding"),
                              schema: schemas[schema])
        _ = try record.prefixed("metadata")
        // A writer may repeat a channel in every chunk: the first counts.
        guard !channels.contains(where: { $0.id == id }) else { return }
        channels.append(channel)
        if keep(channel) { kept.insert(id) }
    }

    private mutating func readChunk(_ record: inout Fields, _ keep: (Channel) -> Bool) throws(MCAPError) {
        _ = try record.integer(UInt64.self, "message_start_time")
        _ = try record.integer(UInt64.self, "message_end_time")
        let size = try record.integer(UInt64.self, "uncompressed_size")
        let crc = try record.integer(UInt32.self, "uncompressed_crc")
        let compression = try record.string("compression")
        guard compression.isEmpty else { throw .compressed(offset: record.offset, compression: compression) }
        let records = try record.take(try record.integer(UInt64.self, "records_length"), "records")
        guard size == UInt64(records.count) else { throw .malformed(offset: record.offset, opcode: record.opcode, field: "uncompressed_size") }
        // 0 means "not computed", which the specification allows.
        guard crc == 0 || CRC32.of(records) == crc else { throw .checksum(offset: record.offset) }
        _ = try read(records, inChunk: true, keep)
    }
}

/// A record's body, read field by field, each read checked against its end.
private struct Fields {
    let body: ArraySlice<UInt8>
    /// The record's offset in the file and its opcode, for errors.
    let offset: Int
    let opcode: UInt8
    private var position: Int

    init(_ body: ArraySlice<UInt8>, offset: Int, opcode: UInt8) {
        self.body = body
        self.offset = offset
        self.opcode = opcode
        position = body.startIndex
    }

    /// What is left: a message's data.
    var rest: ArraySlice<UInt8> { body[position...] }

    mutating func take(_ count: UInt64, _ field: String) throws(MCAPError) -> ArraySlice<UInt8> {
        guard count <= UInt64(body.endIndex - position) else { throw .malformed(offset: offset, opcode: opcode, field: field) }
        let start = position
        position += Int(count)
        return body[start..<position]
    }

    mutating func integer<T: FixedWidthInteger>(_: T.Type, _ field: String) throws(MCAPError) -> T {
        let bytes = try take(UInt64(MemoryLayout<T>.size), field)
        return T(truncatingIfNeeded: bytes.reversed().reduce(UInt64(0)) { $0 << 8 | UInt64($1) })
    }

    mutating func string(_ field: String) throws(MCAPError) -> String {
        String(decoding: try prefixed(field), as: UTF8.self)
    }

    /// Bytes after their 4-byte length: a string's, a schema's data, a map.
    mutating func prefixed(_ field: String) throws(MCAPError) -> ArraySlice<UInt8> {
        try take(UInt64(try integer(UInt32.self, field)), field)
    }
}
