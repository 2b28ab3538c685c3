// SPDX-License-Identifier: Apache-2.0
import AccelCore

/// Writes an indexed MCAP file as rosbag2's MCAP storage does: messages in
/// uncompressed chunks, each followed by its message indexes, then a
/// summary (schemas, channels, statistics, chunk indexes) with its offsets,
/// so that a reader seeks to a topic or a time without reading it all.
/// Chunks carry a CRC-32; so does the summary. The data section's CRC is
/// left 0 ("not computed", as the spec allows): the chunks' cover the data.
///
/// Written here rather than taken from a library: no maintained MCAP
/// writer exists for Swift, and the format is a page of records.
public final class MCAPWriter {
    private let output: AtomicFile
    private var schemas: [[UInt8]] = []
    private var channels: [[UInt8]] = []
    private var chunk = OpenChunk()
    private var chunkIndexes: [[UInt8]] = []
    private var statistics = Statistics()
    private var sequences: [UInt16: UInt32] = [:]
    /// Uncompressed bytes a chunk collects before it is written.
    private let chunkSize: Int

    /// Opens `path` (written beside it, renamed into place by `finish`) with
    /// the given profile (`ros2` for rosbag2) and writing library.
    public init(path: String, profile: String, library: String, chunkSize: Int = 512 * 1024) throws(FileWriteError) {
        output = try AtomicFile(path: path)
        self.chunkSize = chunkSize
        var header = MCAP.Body()
        header.string(profile)
        header.string(library)
        try output.write(MCAP.magic + MCAP.record(.header, header))
    }

    /// Adds a schema in `encoding` (`ros2msg`); returns its id.
    public func addSchema(name: String, encoding: String, data: [UInt8]) throws(FileWriteError) -> UInt16 {
        let id = UInt16(schemas.count + 1)  // 0 means "no schema"
        var body = MCAP.Body()
        body.integer(id)
        body.string(name)
        body.string(encoding)
        body.data(data)
        schemas.append(try written(.schema, body))
        return id
    }

    /// Adds a channel on `topic` with its messages' `encoding` (`cdr`); returns its id.
    public func addChannel(topic: String, schema: UInt16, encoding: String, metadata: [(String, String)]) throws(FileWriteError) -> UInt16 {
        let id = UInt16(channels.count)
        var body = MCAP.Body()
        body.integer(id)
        body.integer(schema)
        body.string(topic)
        body.string(encoding)
        body.map(metadata)
        channels.append(try written(.channel, body))
        return id
    }

    /// A schema or channel record, written where the messages will follow
    /// it and kept for the summary.
    private func written(_ opcode: MCAP.Opcode, _ body: MCAP.Body) throws(FileWriteError) -> [UInt8] {
        let record = MCAP.record(opcode, body)
        try output.write(record)
        return record
    }

    /// One message; `logTime` is nanoseconds since the Unix epoch.
    public func write(channel: UInt16, logTime: UInt64, publishTime: UInt64? = nil, data: [UInt8]) throws(FileWriteError) {
        let sequence = sequences[channel, default: 0]
        sequences[channel] = sequence &+ 1
        var body = MCAP.Body()
        body.integer(channel)
        body.integer(sequence)
        body.integer(logTime)
        body.integer(publishTime ?? logTime)
        body.bytes.append(contentsOf: data)
        chunk.add(MCAP.record(.message, body), channel: channel, logTime: logTime)
        statistics.count(channel: channel, logTime: logTime)
        if chunk.records.count >= chunkSize { try flushChunk() }
    }

    /// Writes the last chunk, the summary and the footer, and renames the
    /// file into place. Nothing may be written after.
    public func finish() throws(FileWriteError) {
        try flushChunk()
        var dataEnd = MCAP.Body()
        dataEnd.integer(UInt32(0))
        try output.write(MCAP.record(.dataEnd, dataEnd))

        let summaryStart = output.offset
        var summary: [UInt8] = []
        let groups: [(MCAP.Opcode, [[UInt8]])] = [
            (.schema, schemas), (.channel, channels),
            (.statistics, [statistics.record(schemas: schemas.count, channels: channels.count)]), (.chunkIndex, chunkIndexes),
        ]
        var offsets = MCAP.Body()
        for (opcode, records) in groups where !records.isEmpty {
            let start = summaryStart + UInt64(summary.count)
            for record in records { summary += record }
            var entry = MCAP.Body()
            entry.integer(opcode.rawValue)
            entry.integer(start)
            entry.integer(summaryStart + UInt64(summary.count) - start)
            offsets.bytes += MCAP.record(.summaryOffset, entry)
        }
        let summaryOffsetStart = summaryStart + UInt64(summary.count)
        // The footer's CRC covers the summary, its offsets and the footer
        // itself up to the CRC (opcode and length included).
        var footer = MCAP.Body()
        footer.integer(summaryStart)
        footer.integer(summaryOffsetStart)
        footer.integer(UInt32(0))
        var record = MCAP.record(.footer, footer)
        var crc = CRC32()
        crc.update(summary)
        crc.update(offsets.bytes)
        crc.update(record.dropLast(4))
        withUnsafeBytes(of: crc.value.littleEndian) { record.replaceSubrange(record.count - 4..<record.count, with: $0) }
        try output.write(summary + offsets.bytes + record + MCAP.magic)
        try output.commit()
    }

    private func flushChunk() throws(FileWriteError) {
        guard !chunk.records.isEmpty else { return }
        var body = MCAP.Body()
        body.integer(chunk.start)
        body.integer(chunk.end)
        body.integer(UInt64(chunk.records.count))
        body.integer(CRC32.of(chunk.records))
        body.string("")  // uncompressed
        body.integer(UInt64(chunk.records.count))
        body.bytes += chunk.records
        let chunkStart = output.offset
        let chunkRecord = MCAP.record(.chunk, body)
        var indexes: [UInt8] = []
        var indexOffsets = MCAP.Body()
        for channel in chunk.index.keys.sorted() {
            indexOffsets.integer(channel)
            indexOffsets.integer(chunkStart + UInt64(chunkRecord.count + indexes.count))
            var entry = MCAP.Body()
            entry.integer(channel)
            entry.prefixed { body in
                for (time, offset) in chunk.index[channel]! { body.integer(time); body.integer(offset) }
            }
            indexes += MCAP.record(.messageIndex, entry)
        }
        try output.write(chunkRecord + indexes)

        var index = MCAP.Body()
        index.integer(chunk.start)
        index.integer(chunk.end)
        index.integer(chunkStart)
        index.integer(UInt64(chunkRecord.count))
        index.data(indexOffsets.bytes)
        index.integer(UInt64(indexes.count))
        index.string("")
        index.integer(UInt64(chunk.records.count))  // compressed size: the same, uncompressed
        index.integer(UInt64(chunk.records.count))
        chunkIndexes.append(MCAP.record(.chunkIndex, index))
        statistics.chunks += 1
        chunk = OpenChunk()
    }
}

/// The chunk being filled: its records and, per channel, each message's
/// time and offset within the records.
private struct OpenChunk {
    var records: [UInt8] = []
    var index: [UInt16: [(UInt64, UInt64)]] = [:]
    var start = UInt64.max, end = UInt64.min

    mutating func add(_ record: [UInt8], channel: UInt16, logTime: UInt64) {
        index[channel, default: []].append((logTime, UInt64(records.count)))
        records += record
        start = min(start, logTime)
        end = max(end, logTime)
    }
}

private struct Statistics {
    var messages: UInt64 = 0
    var chunks: UInt32 = 0
    var start = UInt64.max, end = UInt64.min
    var perChannel: [UInt16: UInt64] = [:]

    mutating func count(channel: UInt16, logTime: UInt64) {
        messages += 1
        perChannel[channel, default: 0] += 1
        start = min(start, logTime)
        end = max(end, logTime)
    }

    func record(schemas: Int, channels: Int) -> [UInt8] {
        var body = MCAP.Body()
        body.integer(messages)
        body.integer(UInt16(schemas))
        body.integer(UInt32(channels))
        body.integer(UInt32(0))  // attachments
        body.integer(UInt32(0))  // metadata
        body.integer(chunks)
        body.integer(messages == 0 ? 0 : start)
        body.integer(messages == 0 ? 0 : end)
        body.prefixed { body in
            for channel in perChannel.keys.sorted() { body.integer(channel); body.integer(perChannel[channel]!) }
        }
        return MCAP.record(.statistics, body)
    }
}
