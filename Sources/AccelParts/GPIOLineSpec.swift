// SPDX-License-Identifier: Apache-2.0

/// Where the chip's INT pin is wired, as `[device] interrupt =` and
/// `--interrupt` take it: `gpiochip0:17` (a chip and a line offset, as
/// gpioinfo numbers them), `gpiochip0:GPIO17` (a line name on that chip),
/// or `GPIO17` (a name from the device tree's gpio-line-names, looked up
/// on every chip). A chip is its node's name, its path, or its label
/// (`pinctrl-bcm2711`, `accel_emu`).
public struct GPIOLineSpec: Sendable, Equatable, CustomStringConvertible {
    public enum Line: Sendable, Equatable {
        case offset(UInt32)
        case name(String)
    }

    /// nil: any chip with a line of that name.
    public let chip: String?
    public let line: Line

    public init(parsing text: String) throws {
        let trimmed = text.trimmingCharacters(in: .whitespaces)
        let parts = trimmed.split(separator: ":", maxSplits: 1, omittingEmptySubsequences: false).map(String.init)
        guard !trimmed.isEmpty, parts.allSatisfy({ !$0.isEmpty && !$0.contains(" ") }) else { throw GPIOError.badSpec(text) }
        if parts.count == 2 {
            chip = parts[0]
            line = UInt32(parts[1]).map(Line.offset) ?? .name(parts[1])
        } else {
            guard UInt32(parts[0]) == nil else { throw GPIOError.badSpec(text) }  // an offset needs its chip
            chip = nil
            line = .name(parts[0])
        }
    }

    public var description: String {
        let line = switch self.line {
        case .offset(let offset): "\(offset)"
        case .name(let name): name
        }
        return chip.map { "\($0):\(line)" } ?? line
    }
}

private extension String {
    func trimmingCharacters(in set: Set<Character>) -> String {
        String(drop { set.contains($0) }.reversed().drop { set.contains($0) }.reversed())
    }
}

private extension Set where Element == Character {
    static let whitespaces: Set<Character> = [" ", "\t"]
}
