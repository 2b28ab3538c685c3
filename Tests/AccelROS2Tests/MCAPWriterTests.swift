// SPDX-License-Identifier: Apache-2.0
import AccelCore
import Foundation
import Testing

@testable import AccelROS2

/// The file's structure as a seeking reader uses it: the footer leads to
/// the summary, the summary's chunk indexes to the chunks, each chunk's
/// message indexes to its messages; every CRC checks.
struct MCAPWriterTests {
    struct Record {
        let opcode: UInt8
        let offset: Int
        let body: ArraySlice<UInt8>
    }

    private func integer<T: FixedWidthInteger>(_ bytes: ArraySlice<UInt8>, _ offset: Int, as _: T.Type = T.self) -> T {
        let start = bytes.startIndex + offset
        return bytes[start..<start + MemoryLayout<T>.size].reversed().reduce(T(0)) { $0 << 8 | T($1) }
    }

    private func record(_ bytes: [UInt8], at offset: Int) -> Record {
        let length = Int(integer(bytes[...], offset + 1, as: UInt64.self))
        return Record(opcode: bytes[offset], offset: offset, body: bytes[offset + 9..<offset + 9 + length])
    }

    private func records(_ bytes: [UInt8], from start: Int, to end: Int) -> [Record] {
        var out: [Record] = [], offset = start
        while offset < end {
            out.append(record(bytes, at: offset))
            offset += 9 + out.last!.body.count
        }
        return out
    }

    private func write(messages: Int, chunkSize: Int) throws -> [UInt8] {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("mcap-\(UUID()).mcap").path
        defer { unlink(path) }
        let writer = try MCAPWriter(path: path, profile: "ros2", library: "test", chunkSize: chunkSize)
        let schema = try writer.addSchema(name: "sensor_msgs/msg/Imu", encoding: "ros2msg", data: Array(ROS2MessageType.imu.definition.utf8))
        let a = try writer.addChannel(topic: "/a", schema: schema, encoding: "cdr", metadata: [("k", "v")])
        let b = try writer.addChannel(topic: "/b", schema: schema, encoding: "cdr", metadata: [])
        for n in 0..<messages {
            try writer.write(channel: n % 3 == 2 ? b : a, logTime: 1_000 + UInt64(n), data: [UInt8(n & 0xFF)])
        }
        try writer.finish()
        return Array(try Data(contentsOf: URL(fileURLWithPath: path)))
    }

    @Test func crcIsZlibs() {
        #expect(CRC32.of(Array("123456789".utf8)) == 0xCBF4_3926)
    }

    @Test(arguments: [1, 10, 1_000])
    func aSeekingReaderFindsEveryMessage(messages: Int) throws {
        let bytes = try write(messages: messages, chunkSize: 200)
        #expect(Array(bytes.prefix(8)) == MCAP.magic && Array(bytes.suffix(8)) == MCAP.magic)
        let footer = bytes.count - 8 - 29
        #expect(bytes[footer] == MCAP.Opcode.footer.rawValue)
        let summaryStart = Int(integer(bytes[...], footer + 9, as: UInt64.self))
        let summaryOffsetStart = Int(integer(bytes[...], footer + 17, as: UInt64.self))
        #expect(integer(bytes[...], footer + 25, as: UInt32.self) == CRC32.of(bytes[summaryStart..<footer + 25]))

        // The summary offsets name each group's place in the summary.
        let summary = records(bytes, from: summaryStart, to: summaryOffsetStart)
        for entry in records(bytes, from: summaryOffsetStart, to: footer) {
            let group = summary.filter { $0.opcode == entry.body.first! }
            #expect(Int(integer(entry.body, 1, as: UInt64.self)) == group.first!.offset)
        }
        let statistics = try #require(summary.first { $0.opcode == MCAP.Opcode.statistics.rawValue })
        #expect(integer(statistics.body, 0, as: UInt64.self) == UInt64(messages))

        // Every chunk: where its index says, with its CRC; every message index entry lands on a message.
        var found: [UInt8] = []
        for index in summary where index.opcode == MCAP.Opcode.chunkIndex.rawValue {
            let chunkStart = Int(integer(index.body, 16, as: UInt64.self))
            let chunk = record(bytes, at: chunkStart)
            #expect(9 + chunk.body.count == Int(integer(index.body, 24, as: UInt64.self)))
            #expect(chunk.opcode == MCAP.Opcode.chunk.rawValue)
            let compressionLength = Int(integer(chunk.body, 28, as: UInt32.self))
            let recordsStart = chunk.body.startIndex + 32 + compressionLength + 8
            let inner = Array(bytes[recordsStart..<chunk.body.endIndex])
            #expect(integer(chunk.body, 24, as: UInt32.self) == CRC32.of(inner))
            let offsetsLength = Int(integer(index.body, 32, as: UInt32.self))
            for entry in stride(from: 36, to: 36 + offsetsLength, by: 10) {
                let messageIndex = record(bytes, at: Int(integer(index.body, entry + 2, as: UInt64.self)))
                #expect(messageIndex.opcode == MCAP.Opcode.messageIndex.rawValue)
                let count = Int(integer(messageIndex.body, 2, as: UInt32.self)) / 16
                for n in 0..<count {
                    let message = record(inner, at: Int(integer(messageIndex.body, 6 + 16 * n + 8, as: UInt64.self)))
                    #expect(message.opcode == MCAP.Opcode.message.rawValue)
                    #expect(integer(message.body, 0, as: UInt16.self) == integer(messageIndex.body, 0, as: UInt16.self))
                    #expect(integer(message.body, 6, as: UInt64.self) == integer(messageIndex.body, 6 + 16 * n, as: UInt64.self))
                    found.append(message.body.last!)
                }
            }
        }
        #expect(found.sorted() == (0..<messages).map { UInt8($0 & 0xFF) }.sorted())
    }
}
