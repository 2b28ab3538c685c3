// SPDX-License-Identifier: Apache-2.0
import AccelParts
#if canImport(Glibc)
import Glibc
#endif
import CGPIO

/// The GPIO line wired to the chip's INT pin, requested through the
/// kernel's GPIO character device for rising edges stamped on
/// CLOCK_MONOTONIC (CGPIO explains why the v2 uAPI and not libgpiod 1.6).
/// Held from `open` until it is released: gpioinfo shows acceld as its
/// consumer meanwhile. (Unchecked: only the waiting thread reads the line;
/// `wake`, from any thread, writes an eventfd.)
public final class GPIOLine: InterruptLine, @unchecked Sendable {
    /// "gpiochip0 line 17 (GPIO17)".
    public let description: String
    public let chipPath: String
    public let offset: UInt32
    /// Only the waiting thread reads the line; `wake` writes the eventfd,
    /// which any thread may.
    private let lineFD: Int32
    private let wakeFD: Int32
    private var edges = [cgpio_edge](repeating: cgpio_edge(), count: 64)

    /// Finds the line `spec` names and requests it as `consumer`.
    public init(_ spec: GPIOLineSpec, consumer: String = "acceld") throws {
        let (path, offset, description) = try GPIOLine.resolve(spec)
        let chip = cgpio_open_chip(path)
        if chip < 0 { throw GPIOError.from(errno: -chip, path: path, line: description, operation: "open") }
        defer { _ = cgpio_close(chip) }
        // A deep queue: at 6.6 kHz with a watermark of 1, 256 edges are 39 ms
        // of a late reader, all counted rather than dropped unseen.
        let line = cgpio_request_rising(chip, offset, consumer, 256)
        if line == -EBUSY {
            var info = cgpio_line_info()
            _ = cgpio_line_info_of(chip, offset, &info)
            throw GPIOError.busy(line: description, consumer: GPIOLine.string(info.consumer))
        }
        if line < 0 { throw GPIOError.from(errno: -line, path: path, line: description, operation: "requesting edges") }
        let wake = cgpio_wake_fd()
        if wake < 0 {
            _ = cgpio_close(line)
            throw GPIOError.failed(operation: "eventfd", line: description, errno: -wake)
        }
        chipPath = path
        self.offset = offset
        self.description = description
        lineFD = line
        wakeFD = wake
    }

    deinit {
        _ = cgpio_close(lineFD)
        _ = cgpio_close(wakeFD)
    }

    public func wait(nanoseconds: UInt64) throws -> [Edge] {
        let ready = cgpio_wait(lineFD, wakeFD, nanoseconds)
        if ready < 0 { throw GPIOError.from(errno: -ready, path: chipPath, line: description, operation: "waiting for edges") }
        guard ready == 1 else { return [] }
        let count = edges.withUnsafeMutableBufferPointer { cgpio_read_edges(lineFD, $0.baseAddress, Int32($0.count)) }
        if count < 0 { throw GPIOError.from(errno: -count, path: chipPath, line: description, operation: "reading edges") }
        return edges[..<Int(count)].map { Edge(instant: $0.timestamp_ns, sequence: $0.line_seqno) }
    }

    public func wake() { _ = cgpio_wake(wakeFD) }

    public func level() throws -> Bool {
        let level = cgpio_level(lineFD)
        if level < 0 { throw GPIOError.from(errno: -level, path: chipPath, line: description, operation: "reading the level") }
        return level == 1
    }

    // MARK: Finding the line

    /// Every GPIO chip node, in number order.
    public static func chipPaths(in directory: String = "/dev") -> [String] {
        guard let dir = opendir(directory) else { return [] }
        defer { closedir(dir) }
        var names: [String] = []
        while let entry = readdir(dir) {
            let name = withUnsafeBytes(of: entry.pointee.d_name) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }
            if name.hasPrefix("gpiochip"), Int(name.dropFirst(8)) != nil { names.append(name) }
        }
        return names.sorted { Int($0.dropFirst(8))! < Int($1.dropFirst(8))! }.map { "\(directory)/\($0)" }
    }

    /// A chip's name, label and lines; nil when it cannot be opened as one.
    public static func info(chip path: String) -> cgpio_chip_info? {
        let fd = cgpio_open_chip(path)
        guard fd >= 0 else { return nil }
        defer { _ = cgpio_close(fd) }
        var info = cgpio_chip_info()
        return cgpio_chip_info_of(fd, &info) == 0 ? info : nil
    }

    /// The names of `chip`'s lines, by offset ("" where unnamed), with their consumers.
    public static func lines(chip path: String) -> [(name: String, consumer: String)] {
        let fd = cgpio_open_chip(path)
        guard fd >= 0 else { return [] }
        defer { _ = cgpio_close(fd) }
        var chip = cgpio_chip_info()
        guard cgpio_chip_info_of(fd, &chip) == 0 else { return [] }
        return (0..<chip.lines).map { offset in
            var line = cgpio_line_info()
            _ = cgpio_line_info_of(fd, offset, &line)
            return (string(line.name), string(line.consumer))
        }
    }

    /// The chip node, the offset and a description of the line `spec` names.
    static func resolve(_ spec: GPIOLineSpec) throws -> (path: String, offset: UInt32, description: String) {
        let paths = chipPaths()
        let chips: [String]
        if let chip = spec.chip {
            if chip.hasPrefix("/") {
                chips = [chip]
            } else if let node = paths.first(where: { $0.hasSuffix("/\(chip)") }) {
                chips = [node]
            } else if let labelled = paths.first(where: { info(chip: $0).map { string($0.label) } == chip }) {
                chips = [labelled]
            } else {
                throw GPIOError.noChip(chip, available: paths.compactMap(summary))
            }
        } else {
            chips = paths
        }
        for path in chips {
            let fd = cgpio_open_chip(path)
            if fd < 0 {
                if spec.chip != nil { throw GPIOError.from(errno: -fd, path: path, line: spec.description, operation: "open") }
                continue
            }
            _ = cgpio_close(fd)
            let names = lines(chip: path).map(\.name)
            let name = path.split(separator: "/").last.map(String.init) ?? path
            switch spec.line {
            case .offset(let offset):
                guard offset < names.count else { throw GPIOError.noLine("\(offset)", chip: name, lines: names.count) }
                return (path, offset, describe(name, offset, names[Int(offset)]))
            case .name(let wanted):
                if let index = names.firstIndex(of: wanted) { return (path, UInt32(index), describe(name, UInt32(index), wanted)) }
                if spec.chip != nil { throw GPIOError.noLine(wanted, chip: name, lines: names.count) }
            }
        }
        if chips.isEmpty { throw GPIOError.noChip(spec.chip ?? "any", available: []) }
        throw GPIOError.noLine(spec.description, chip: chips.compactMap(summary).joined(separator: ", "), lines: 0)
    }

    private static func describe(_ chip: String, _ offset: UInt32, _ name: String) -> String {
        name.isEmpty ? "\(chip) line \(offset)" : "\(chip) line \(offset) (\(name))"
    }

    /// "gpiochip0 (pinctrl-bcm2711, 58 lines)".
    private static func summary(_ path: String) -> String? {
        info(chip: path).map { "\(string($0.name)) (\(string($0.label)), \($0.lines) lines)" }
    }

    static func string<T>(_ tuple: T) -> String {
        withUnsafeBytes(of: tuple) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }
    }
}
