// SPDX-License-Identifier: Apache-2.0
import AccelCore

/// A machine-vibration recording from ../shared/data/vibration: `#` lines
/// (source, device, rate, content), a header, then one row per sample of
/// time and one to three axes. What is known about it is read from its own
/// `#` lines: the rate from `device:` ("48828 Hz"), the fault from
/// `content:` ("inner-race fault"), the shaft ("shaft rate 25 Hz").
public struct VibrationRecording: Sendable {
    public let path: String
    public let rate: Double
    /// The axes' columns, g (one for a single-axis rig).
    public let axes: [[Double]]
    public let comments: [String]

    public var name: String { String(path.split(separator: "/").last ?? "").replacingSuffix(".csv", with: "") }
    public var duration: Double { Double(axes[0].count) / rate }

    public init(path: String) throws {
        guard let text = readTextFile(path) else { throw DevelopmentData.DataError(message: "cannot read \(path)") }
        var comments: [String] = []
        var header: [Substring]?
        var columns: [[Double]] = []
        for line in text.split(separator: "\n", omittingEmptySubsequences: true) {
            if line.hasPrefix("#") { comments.append(String(line.dropFirst().drop { $0 == " " })); continue }
            let fields = line.split(separator: ",")
            guard header != nil else {
                header = fields
                columns = Array(repeating: [], count: max(0, fields.count - 1))
                continue
            }
            guard fields.count == columns.count + 1 else { throw DevelopmentData.DataError(message: "\(path): a row of \(fields.count) fields under a header of \(columns.count + 1)") }
            for i in columns.indices {
                guard let value = Double(fields[i + 1]) else { throw DevelopmentData.DataError(message: "\(path): '\(fields[i + 1])' is not a number") }
                columns[i].append(value)
            }
        }
        guard !columns.isEmpty, !columns[0].isEmpty else { throw DevelopmentData.DataError(message: "\(path): no samples") }
        guard let rate = Self.hertz(after: "device:", in: comments) else { throw DevelopmentData.DataError(message: "\(path): no rate in its '# device:' line") }
        self.path = path
        self.rate = rate
        self.axes = columns
        self.comments = comments
    }

    /// "bpfi" for an inner-race fault, "bpfo" for an outer-race one.
    public var defect: String? {
        let content = comments.first { $0.hasPrefix("content:") } ?? ""
        if content.contains("inner-race fault") { return "bpfi" }
        if content.contains("outer-race fault") { return "bpfo" }
        return nil
    }

    /// The shaft's rate its `content:` line gives.
    public var shaft: Double? { Self.hertz(after: "shaft rate", in: comments) }

    /// The frequency a `fault frequencies:` line gives a defect ("BPFI 118.875 Hz").
    public func faultFrequency(_ defect: String) -> Double? { Self.hertz(after: defect.uppercased(), in: comments) }

    /// The first "N Hz" after `marker` in the comments.
    static func hertz(after marker: String, in comments: [String]) -> Double? {
        for comment in comments {
            guard let found = comment.firstRange(of: marker) else { continue }
            let words = comment[found.upperBound...].split(whereSeparator: { $0 == " " || $0 == "," || $0 == ";" })
            for (i, word) in words.enumerated() where i + 1 < words.count && words[i + 1].hasPrefix("Hz") {
                if let value = Double(word) { return value }
            }
        }
        return nil
    }
}
