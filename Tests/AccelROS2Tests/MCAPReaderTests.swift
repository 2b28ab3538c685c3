// SPDX-License-Identifier: Apache-2.0
import AccelCore
import AccelProtocol
import Foundation
import Testing

@testable import AccelROS2

/// The reader against the writer: what a recording wrote comes back
/// message for message, and damaged or foreign bytes are refused in words,
/// never read past their end.
struct MCAPReaderTests {
    private func temporaryPath() -> String {
        FileManager.default.temporaryDirectory.appendingPathComponent("mcap-reader-\(UUID()).mcap").path
    }

    /// A small two-channel file written in chunks of `chunkSize` bytes.
    private func smallFile(messages: Int = 12, chunkSize: Int = 100) throws -> [UInt8] {
        let path = temporaryPath()
        defer { unlink(path) }
        let writer = try MCAPWriter(path: path, profile: "ros2", library: "test", chunkSize: chunkSize)
        let schema = try writer.addSchema(name: "sensor_msgs/msg/Imu", encoding: "ros2msg", data: Array(ROS2MessageType.imu.definition.utf8))
        let a = try writer.addChannel(topic: "/a", schema: schema, encoding: "cdr", metadata: [("k", "v")])
        let b = try writer.addChannel(topic: "/b", schema: 0, encoding: "json", metadata: [])
        for n in 0..<messages {
            try writer.write(channel: n % 3 == 2 ? b : a, logTime: 1_000 + UInt64(n), data: Array(repeating: UInt8(n & 0xFF), count: n % 7))
        }
        try writer.finish()
        return try #require(readBinaryFile(path))
    }

    /// The top-level records' offsets and opcodes, as a reader walks them.
    private func records(_ bytes: [UInt8]) -> [(offset: Int, opcode: UInt8)] {
        var out: [(Int, UInt8)] = [], offset = 8
        while offset + 9 <= bytes.count - 8 {
            out.append((offset, bytes[offset]))
            offset += 9 + Int(bytes[offset + 1..<offset + 9].reversed().reduce(UInt64(0)) { $0 << 8 | UInt64($1) })
        }
        return out
    }

    @Test("a recording reads back message for message: every IMU message's values and stamp, and the diagnostics")
    func recordingRoundTrip() throws {
        let path = temporaryPath()
        defer { unlink(path) }
        let device = DeviceInfo(chip: "LSM6DSO", location: "chip model (tour)", range: 2, rate: 104, mode: "high-performance",
                                resolution: 16, gyroscope: 2000)
        let conversion = ImuConversion(frameID: "imu_link", device: device)
        let clock = ClockMapping(offset: 1_790_000_000_123_456_789, atMonotonic: 0)
        let recording = try ROS2Recording(path: path, conversion: conversion, clock: clock, library: "accelctl test")
        let frames = (0..<500).map { i -> FrameMessage in
            let t = 50 + Double(i) / 104, phase = Double(i) / 40
            return FrameMessage(seq: UInt64(i), t: t, acceleration: Vector3(0.3 * sin(phase), -0.2 * cos(phase), 0.95 + 0.001 * Double(i % 7)),
                                quaternion: Quaternion(axis: Vector3(1, 2, 3), angle: phase), rotationRate: Vector3(0.1 * cos(phase), -0.4, 1e-3 * Double(i)))
        }
        for frame in frames { try recording.record(frame) }
        try recording.record(StatusReport(uptime: 5, clients: 1, counters: SamplerCounters(), device: device))
        try recording.finish()

        let bag = try MCAPReader(bytes: try #require(readBinaryFile(path)))
        #expect(bag.profile == "ros2" && bag.library == "accelctl test")
        #expect(bag.channels.map(\.topic) == ["/imu/data_raw", "/imu/data", "/diagnostics"])
        #expect(bag.channels.map { $0.schema?.name } == ["sensor_msgs/msg/Imu", "sensor_msgs/msg/Imu", "diagnostic_msgs/msg/DiagnosticArray"])
        #expect(bag.channels.allSatisfy { $0.messageEncoding == "cdr" && $0.schema?.encoding == "ros2msg" })
        for (channel, make) in [(bag.channels[0], conversion.raw), (bag.channels[1], conversion.fused)] {
            let messages = bag.messages.filter { $0.channel == channel.id }
            try #require(messages.count == frames.count, "\(channel.topic)")
            for (message, frame) in zip(messages, frames) {
                let stamp = ROS2Time(unixNanoseconds: clock.unixNanoseconds(ofMonotonic: frame.t))
                let expected = try #require(make(frame, stamp))
                #expect(try ImuMessage(cdr: message.data) == expected, "\(channel.topic) #\(frame.seq)")
                #expect(message.logTime == UInt64(stamp.unixNanoseconds) && message.publishTime == message.logTime)
            }
            #expect(messages.map(\.sequence) == (0..<UInt32(frames.count)).map { $0 })
        }
        let diagnostics = try #require(bag.messages.first { $0.channel == bag.channels[2].id })
        let status = try #require(try DiagnosticArrayMessage(cdr: diagnostics.data).status.first)
        #expect(status.name == "acceld: imu" && status.hardwareID == "LSM6DSO at chip model (tour)")
        #expect(status.values.first { $0.key == "chip" }?.value == "LSM6DSO" && status.values.first { $0.key == "rate" }?.value == "104")
    }

    @Test("messages across many chunks come back in order, only those of the channels kept")
    func manyChunks() throws {
        let bytes = try smallFile(messages: 1_000, chunkSize: 200)
        #expect(records(bytes).filter { $0.opcode == MCAP.Opcode.chunk.rawValue }.count > 10)
        let bag = try MCAPReader(bytes: bytes) { $0.topic == "/b" }
        #expect(bag.channels.map(\.topic) == ["/a", "/b"] && bag.channels[1].schema == nil)
        let expected = (0..<1_000).filter { $0 % 3 == 2 }
        #expect(bag.messages.map(\.logTime) == expected.map { 1_000 + UInt64($0) })
        #expect(bag.messages.map(\.sequence) == (0..<UInt32(expected.count)).map { $0 })
        #expect(bag.messages.map { Array($0.data) } == expected.map { Array(repeating: UInt8($0 & 0xFF), count: $0 % 7) })
    }

    @Test("every prefix of a file is refused in words until its data ends; from there on every message is read")
    func everyPrefix() throws {
        let bytes = try smallFile()
        let whole = try MCAPReader(bytes: bytes).messages
        let dataEnd = try #require(records(bytes).first { $0.opcode == MCAP.Opcode.dataEnd.rawValue })
        for cut in 0..<bytes.count {
            let prefix = Array(bytes.prefix(cut))
            if cut >= dataEnd.offset + 13 {
                #expect(try MCAPReader(bytes: prefix).messages == whole, "cut at \(cut)")
                continue
            }
            let error = #expect(throws: MCAPError.self) { try MCAPReader(bytes: prefix) }
            let words = error?.description ?? ""
            #expect(words.contains(cut < 8 ? "not an MCAP file" : "cut short"), "cut at \(cut): \(words)")
        }
        let atBoundary = #expect(throws: MCAPError.self) { try MCAPReader(bytes: Array(bytes.prefix(dataEnd.offset))) }
        #expect(atBoundary == .truncated(length: dataEnd.offset))
        #expect(atBoundary?.description.contains("without MCAP's end of data") == true)
        #expect(atBoundary?.description.contains("mcap recover FILE -o WHOLE.mcap") == true)
    }

    @Test("a file that is not MCAP is refused by its first bytes, shown as they are")
    func notMCAP() {
        let csv = #expect(throws: MCAPError.self) { try MCAPReader(bytes: Array("t,x,y,z\n0,0,0,1\n".utf8)) }
        #expect(csv?.description.hasPrefix("not an MCAP file: it begins with 't,x,y,z\\n', where an MCAP file begins with '\\x89MCAP0\\r\\n'") == true)
        #expect(csv?.description.contains("CSV traces") == true)
        let empty = #expect(throws: MCAPError.self) { try MCAPReader(bytes: []) }
        #expect(empty?.description.hasPrefix("not an MCAP file: it is empty") == true)
    }

    @Test("a record whose length runs past the end of the file is refused, naming it and its offset")
    func lengthPastTheEnd() throws {
        var bytes = try smallFile()
        let chunk = try #require(records(bytes).first { $0.opcode == MCAP.Opcode.chunk.rawValue })
        for (index, byte) in [UInt8](repeating: 0xFF, count: 8).enumerated() { bytes[chunk.offset + 1 + index] = byte }
        let error = #expect(throws: MCAPError.self) { try MCAPReader(bytes: bytes) }
        #expect(error == .pastEnd(offset: chunk.offset, opcode: 6, length: .max, available: bytes.count - chunk.offset - 9, inChunk: false))
        #expect(error?.description.hasPrefix("the Chunk record at byte \(chunk.offset) says it holds 18446744073709551615 bytes, but only") == true)
    }

    @Test("a compressed chunk is refused, naming its compression and how to decompress the file")
    func compressedChunk() throws {
        var header = MCAP.Body()
        header.string("ros2")
        header.string("elsewhere")
        var chunk = MCAP.Body()
        for value: UInt64 in [0, 0, 100] { chunk.integer(value) }
        chunk.integer(UInt32(0))
        chunk.string("zstd")
        chunk.integer(UInt64(3))
        chunk.bytes += [1, 2, 3]
        let start = MCAP.magic.count + 9 + header.bytes.count
        let bytes = MCAP.magic + MCAP.record(.header, header) + MCAP.record(.chunk, chunk)
        let error = #expect(throws: MCAPError.self) { try MCAPReader(bytes: bytes) }
        #expect(error == .compressed(offset: start, compression: "zstd"))
        #expect(error?.description.contains("compressed with zstd") == true)
        #expect(error?.description.contains("mcap decompress FILE -o PLAIN.mcap") == true)
    }

    @Test("a chunk whose bytes do not match its CRC is refused")
    func damagedChunk() throws {
        var bytes = try smallFile()
        let chunk = try #require(records(bytes).first { $0.opcode == MCAP.Opcode.chunk.rawValue })
        bytes[chunk.offset + 9 + 60] ^= 0x01  // inside its first record
        #expect(throws: MCAPError.checksum(offset: chunk.offset)) { try MCAPReader(bytes: bytes) }
    }

    @Test("random bytes and damaged files never crash the reader or the decoders")
    func garbage() throws {
        var random = SeededRandom(seed: 50)
        let valid = try smallFile(messages: 30, chunkSize: 150)
        for round in 0..<3_000 {
            var bytes: [UInt8]
            if round % 2 == 0 {
                bytes = (0..<Int(random.next() % 400)).map { _ in UInt8(truncatingIfNeeded: random.next()) }
                if round % 4 == 0 { bytes = MCAP.magic + bytes }
            } else {
                bytes = valid
                for _ in 0..<(1 + random.next() % 4) { bytes[Int(random.next() % UInt64(bytes.count))] = UInt8(truncatingIfNeeded: random.next()) }
            }
            guard let bag = try? MCAPReader(bytes: bytes) else { continue }
            for message in bag.messages {
                _ = try? ImuMessage(cdr: message.data)
                _ = try? DiagnosticArrayMessage(cdr: message.data)
            }
        }
    }
}
