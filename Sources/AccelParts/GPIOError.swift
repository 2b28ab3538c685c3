// SPDX-License-Identifier: Apache-2.0
#if canImport(Glibc)
import Glibc
#endif

/// What can go wrong with the chip's INT line, each with its own advice
/// and exit code (docs/ERRORS.md).
public enum GPIOError: Error, Equatable, CustomStringConvertible, Sendable {
    /// `interrupt =` could not be read as CHIP:LINE or a line name.
    case badSpec(String)
    /// No such GPIO chip; `available` describes those there are.
    case noChip(String, available: [String])
    /// The node is not a GPIO chip (ioctl says ENOTTY).
    case notAChip(path: String)
    /// The chip has no such line.
    case noLine(String, chip: String, lines: Int)
    /// Another holder has the line (EBUSY), named by the kernel's consumer.
    case busy(line: String, consumer: String)
    case permissionDenied(path: String)
    /// An ioctl or read failed otherwise.
    case failed(operation: String, line: String, errno: Int32)
    /// The line gave no edge within a second of the chip's first sample.
    case silent(line: String, pin: String, rate: Int, level: Bool?)
    /// The chip went away (its gpiochip was removed) while acceld held a line.
    case gone(line: String)
    /// Reads that found samples while the line gave no edge.
    case stuck(line: String, reads: Int, level: Bool?)
    /// Edges sooner than the chip makes samples.
    case tooFast(line: String, edges: Int, rate: Int)

    public var description: String {
        switch self {
        case .badSpec(let text):
            return "interrupt = \(text): give the GPIO line as CHIP:LINE (gpiochip0:17, or gpiochip0:GPIO17), or a line name alone (GPIO17); 'gpioinfo' lists the chips and their lines"
        case .noChip(let name, let available):
            let there = available.isEmpty ? "there is no GPIO chip under /dev at all (a kernel without the GPIO character device, or a container without /dev/gpiochip*)"
                : "the chips here are " + available.joined(separator: ", ")
            return "no GPIO chip '\(name)': \(there)"
        case .notAChip(let path):
            return "\(path) is not a GPIO chip: name one of /dev/gpiochip* ('gpiodetect' lists them)"
        case .noLine(let line, let chip, let lines) where lines == 0:
            return "no GPIO line is named '\(line)' on \(chip): give CHIP:OFFSET, or a name 'gpioinfo' shows"
        case .noLine(let line, let chip, let lines):
            return "\(chip) has no line '\(line)': give an offset below \(lines) or a name 'gpioinfo \(chip)' shows"
        case .busy(let line, let consumer):
            let who = consumer.isEmpty ? "another holder" : "'\(consumer)'"
            return "\(line) is held by \(who): stop that program (gpiomon? another acceld?) or remove the device-tree overlay that claims the pin, then start again"
        case .permissionDenied(let path):
            return "permission denied opening \(path): add the user to the 'gpio' group (Raspberry Pi OS has one) or run acceld as its service; the unit allows /dev/gpiochip*"
        case .failed(let operation, let line, let code):
            return "\(operation) on \(line) failed: \(String(cString: strerror(code)))"
        case .silent(let line, let pin, let rate, let level):
            let stuck = level.map { " The line reads \($0 ? "high" : "low") all along." } ?? ""
            return "no edge on \(line) within a second of the chip's first sample at \(rate) Hz: is the chip's \(pin) wired to that line, and is interrupt-pin the pin you wired?\(stuck) 'accelctl probe --interrupt' finds the wiring; to go on with the timer pacing the reads, set interrupt-fallback = timer"
        case .gone(let line):
            return "\(line) is gone: its GPIO chip was removed"
        case .stuck(let line, let reads, let level):
            let reads = "\(reads) reads in a row found a new sample while \(line) gave no edge"
            return level.map { "\(reads); it reads \($0 ? "high" : "low") (stuck, or the pin no longer routed to it)" } ?? reads
        case .tooFast(let line, let edges, let rate):
            return "\(line) gave \(edges) edges sooner than the chip's \(rate) Hz can make samples: another chip's pin on the same line, or a line that rings; those edges are not taken as samples"
        }
    }

    public var exitCode: Int32 {
        switch self {
        case .noChip, .gone: 69                  // EX_UNAVAILABLE, as a missing bus
        case .notAChip: 66                       // EX_NOINPUT, as a node that is not an adapter
        case .badSpec, .noLine: 78               // EX_CONFIG
        case .busy: 75                           // EX_TEMPFAIL, as an address a driver owns
        case .permissionDenied: 77               // EX_NOPERM
        case .failed, .silent, .stuck, .tooFast: 74  // EX_IOERR
        }
    }
}
