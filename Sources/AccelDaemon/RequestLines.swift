// SPDX-License-Identifier: Apache-2.0

/// What a client's bytes come to: request lines, or the news that a line
/// was longer than allowed.
enum InboundLine: Equatable {
    case line([UInt8])
    case tooLong
}

/// Splits a client's bytes into lines of at most `maxLength` bytes (without
/// the newline, and a CR before it). A longer line is reported once and
/// skipped up to its newline; blank lines are ignored. A last line without
/// its newline is not a request.
struct RequestLines {
    let maxLength: Int
    private var partial: [UInt8] = []
    private var discarding = false

    init(maxLength: Int) {
        self.maxLength = maxLength
    }

    /// The lines that `bytes` complete, in order.
    mutating func add(_ bytes: [UInt8]) -> [InboundLine] {
        var lines: [InboundLine] = []
        var start = bytes.startIndex
        while let newline = bytes[start...].firstIndex(of: UInt8(ascii: "\n")) {
            let piece = bytes[start..<newline]
            start = newline + 1
            if discarding {
                discarding = false
                partial = []
                continue
            }
            var line = partial.isEmpty ? Array(piece) : partial + piece
            partial = []
            if line.last == UInt8(ascii: "\r") { line.removeLast() }
            if line.count > maxLength {
                lines.append(.tooLong)
            } else if !line.allSatisfy({ $0 == 0x20 || $0 == 0x09 }) {
                lines.append(.line(line))
            }
        }
        guard !discarding else { return lines }
        partial += bytes[start...]
        if partial.count > maxLength {
            // Reported now, not at its newline, which may never come.
            partial = []
            discarding = true
            lines.append(.tooLong)
        }
        return lines
    }
}
