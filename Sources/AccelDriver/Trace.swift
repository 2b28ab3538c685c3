// SPDX-License-Identifier: Apache-2.0
import AccelCore
import AccelParts
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A recording in the project's trace format (docs/TRACE-FORMAT.md):
/// `#` comment lines, the header `t,x,y,z`, then one row per sample of
/// seconds and specific force in g (+1 g on the axis pointing up at rest).
/// A trace from a part with a gyroscope has the header `t,x,y,z,wx,wy,wz`
/// and the rotation rate in rad/s on each row.
public struct Trace: Sendable, Equatable {
    public var comments: [String]
    public var times: [Double]
    public var samples: [Vector3]
    /// rad/s, row for row with `samples`; nil for an accelerometer's trace.
    public var rotationRates: [Vector3]?

    public init(comments: [String] = [], times: [Double] = [], samples: [Vector3] = [], rotationRates: [Vector3]? = nil, oneAxis: Axis? = nil) {
        precondition(times.count == samples.count && (rotationRates?.count ?? times.count) == times.count)
        self.comments = comments
        self.times = times
        self.samples = samples
        self.rotationRates = rotationRates
        self.oneAxis = oneAxis
    }

    public var count: Int { times.count }
    public var duration: Double { (times.last ?? 0) - (times.first ?? 0) }

    /// The sample interval in seconds: the span over the periods it
    /// holds, each gap counted as the whole number of median gaps it
    /// spans. Robust to the odd dropped row (a hole counts the periods it
    /// lost) and to times written to the microsecond: a 12 kHz trace's 83
    /// and 84 µs gaps give 83.33 µs, where their median said 83, 0.4 %
    /// off every line in it.
    public var typicalInterval: Double {
        guard times.count > 1 else { return 0 }
        let gaps = zip(times.dropFirst(), times).map { $0 - $1 }
        let median = gaps.sorted()[gaps.count / 2]
        guard median > 0 else { return 0 }
        return duration / gaps.reduce(0) { $0 + max(($1 / median).rounded(), 1) }
    }

    /// The part the `# device:` comment names first (`accelctl record`
    /// writes it), when it is one of the table's.
    public var recordedPart: ChipProfile? {
        guard let device = comments.first(where: { $0.hasPrefix("device:") }) else { return nil }
        let word = device.dropFirst("device:".count).split(whereSeparator: { $0 == " " || $0 == "," }).first
        return word.flatMap { ChipProfile.named(String($0)) }
    }

    public static let header = "t,x,y,z"
    public static let rotationHeader = "t,x,y,z,wx,wy,wz"
    /// One axis: named (`t,x`), or not (`t,a`: the player names it).
    static let oneAxisHeaders = ["t,a", "t,x", "t,y", "t,z"]

    /// For a one-axis trace, the board's axis it was measured on; nil for
    /// three. Its other axes read a board lying flat: 1 g on z, added to
    /// the recording where it is z (a vibration recording is AC-coupled).
    public var oneAxis: Axis?

    public struct FormatError: Error, Equatable, CustomStringConvertible {
        public let source: String
        public let line: Int
        public let reason: String
        public var description: String {
            "\(source):\(line): \(reason) (trace format: '#' comments, the header 't,x,y,z' (or 't,x,y,z,wx,wy,wz' with rotation rates, or 't,a' for one axis), then rows of seconds and g (and rad/s), e.g. '0.010,0.02,-0.01,0.98')"
        }
    }

    /// Parses trace text. `source` names it in errors (a path, "stdin");
    /// `axis` is the board's axis a one-axis trace (`t,a`) was measured on.
    public init(parsing text: String, source: String = "trace", axis: Axis? = nil) throws {
        var comments: [String] = []
        var times: [Double] = []
        var samples: [Vector3] = []
        var rates: [Vector3] = []
        var columns: [String] = []
        var oneAxis: Axis?
        var lineNumber = 0
        for rawLine in text.split(separator: "\n", omittingEmptySubsequences: false) {
            lineNumber += 1
            let line = rawLine.last == "\r" ? rawLine.dropLast() : rawLine
            if line.first == "#" {
                comments.append(String(line.dropFirst().drop { $0 == " " }))
                continue
            }
            if line.allSatisfy({ $0 == " " || $0 == "\t" }) { continue }
            guard !columns.isEmpty else {
                let cells = line.split(separator: ",").map { String($0.trimmingCharacters()) }
                let header = cells.joined(separator: ",")
                guard header == Trace.header || header == Trace.rotationHeader || Trace.oneAxisHeaders.contains(header) else {
                    throw FormatError(source: source, line: lineNumber, reason: "expected the header 't,x,y,z', 't,x,y,z,wx,wy,wz' or 't,a', found '\(line.prefix(60))'")
                }
                if cells.count == 2 {
                    guard let named = Axis(rawValue: cells[1]) ?? axis else {
                        throw FormatError(source: source, line: lineNumber, reason: "a one-axis trace ('t,a'): say which of the board's axes it was measured on (--axis x, y or z), or name it in the header ('t,x', 't,y' or 't,z')")
                    }
                    oneAxis = named
                }
                columns = cells
                continue
            }
            let cells = line.split(separator: ",", omittingEmptySubsequences: false)
            guard cells.count == columns.count else {
                throw FormatError(source: source, line: lineNumber,
                                  reason: "expected \(columns.count) comma-separated values (\(columns.joined(separator: ","))), found \(cells.count)")
            }
            var values: [Double] = []
            values.reserveCapacity(columns.count)
            for (index, cell) in cells.enumerated() {
                guard let value = Double(cell.trimmingCharacters()), value.isFinite else {
                    throw FormatError(source: source, line: lineNumber, reason: "column \(columns[index]) is '\(cell.prefix(30))', not a finite number")
                }
                values.append(value)
            }
            if let previous = times.last, values[0] <= previous {
                throw FormatError(source: source, line: lineNumber, reason: "time \(values[0]) s does not increase (previous row: \(previous) s)")
            }
            times.append(values[0])
            if let oneAxis {
                var g = Vector3(0, 0, 1)
                g[oneAxis] += values[1]
                samples.append(g)
                continue
            }
            samples.append(Vector3(values[1], values[2], values[3]))
            if values.count == 7 { rates.append(Vector3(values[4], values[5], values[6])) }
        }
        let lastLine = text.hasSuffix("\n") ? lineNumber - 1 : lineNumber
        guard !columns.isEmpty else { throw FormatError(source: source, line: lastLine, reason: "no header 't,x,y,z' found") }
        guard !times.isEmpty else { throw FormatError(source: source, line: lastLine, reason: "no samples after the header") }
        self.init(comments: comments, times: times, samples: samples, rotationRates: columns.count == 7 ? rates : nil, oneAxis: oneAxis)
    }

    /// Reads and parses a file.
    public init(contentsOf path: String, axis: Axis? = nil) throws {
        guard let text = readTextFile(path) else {
            throw FormatError(source: path, line: 0, reason: "cannot read the file: \(String(cString: strerror(errno)))")
        }
        try self.init(parsing: text, source: path, axis: axis)
    }

    /// The text form: comments, header, rows with 6 decimals for t and 5 for g
    /// (10 µg: finer than any chip of the family resolves) and 6 for rad/s
    /// (1 µrad/s: finer than any gyroscope's noise).
    public var text: String {
        var out = comments.map { "# \($0)\n" }.joined()
        out += (rotationRates == nil ? Trace.header : Trace.rotationHeader) + "\n"
        out.reserveCapacity(out.utf8.count + times.count * (rotationRates == nil ? 36 : 66))
        for (i, (t, g)) in zip(times, samples).enumerated() {
            out += "\(fixed(t, 6)),\(fixed(g.x, 5)),\(fixed(g.y, 5)),\(fixed(g.z, 5))"
            if let w = rotationRates?[i] { out += ",\(fixed(w.x, 6)),\(fixed(w.y, 6)),\(fixed(w.z, 6))" }
            out += "\n"
        }
        return out
    }
}
