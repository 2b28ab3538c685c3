// SPDX-License-Identifier: Apache-2.0
@testable import AccelDriver
import AccelParts
import Testing

/// The INT line's name as a person writes it, and the errors of a line
/// that cannot be had. Edges on a real line are the kernel stage's
/// (accel_emu's GPIO controller, docs/TESTING.md).
@Suite("GPIO lines")
struct GPIOLineTests {
    @Test("CHIP:OFFSET, CHIP:NAME and a name alone", arguments: [
        ("gpiochip0:17", "gpiochip0", GPIOLineSpec.Line.offset(17)),
        ("gpiochip0:GPIO17", "gpiochip0", .name("GPIO17")),
        ("/dev/gpiochip1:4", "/dev/gpiochip1", .offset(4)),
        ("accel_emu:lis3dh-0x18-int1", "accel_emu", .name("lis3dh-0x18-int1")),
        ("GPIO17", nil, .name("GPIO17")),
    ] as [(String, String?, GPIOLineSpec.Line)])
    func parses(text: String, chip: String?, line: GPIOLineSpec.Line) throws {
        let spec = try GPIOLineSpec(parsing: text)
        #expect(spec.chip == chip && spec.line == line)
        #expect(spec.description == text)
    }

    @Test("what is not a line is refused with the forms that are", arguments: ["", "17", "gpiochip0:", ":17", "gpio chip0:1"])
    func refuses(text: String) {
        #expect(throws: GPIOError.badSpec(text)) { try GPIOLineSpec(parsing: text) }
        #expect(GPIOError.badSpec(text).exitCode == 78)
    }

    @Test("a node that is not a GPIO chip (ENOTTY) is said so, exit 66")
    func notAChip() {
        #expect {
            _ = try GPIOLine(GPIOLineSpec(parsing: "/dev/null:0"))
        } throws: { error in
            (error as? GPIOError) == .notAChip(path: "/dev/null") && (error as? GPIOError)?.exitCode == 66
        }
    }

    @Test("a chip that is not there names the chips there are, exit 69")
    func noChip() {
        #expect {
            _ = try GPIOLine(GPIOLineSpec(parsing: "gpiochip97:1"))
        } throws: { error in
            guard let error = error as? GPIOError, case .noChip(let name, _) = error else { return false }
            return name == "gpiochip97" && error.exitCode == 69
        }
    }

    @Test("every error names its fix: a busy line names who holds it, a silent one the fallback")
    func messages() {
        #expect(GPIOError.busy(line: "gpiochip0 line 17 (GPIO17)", consumer: "gpiomon").description.contains("held by 'gpiomon'"))
        #expect(GPIOError.busy(line: "x", consumer: "").exitCode == 75)
        #expect(GPIOError.permissionDenied(path: "/dev/gpiochip0").exitCode == 77)
        let silent = GPIOError.silent(line: "gpiochip0 line 17", pin: "INT1", rate: 400, level: true)
        #expect(silent.exitCode == 74 && silent.description.contains("reads high all along") && silent.description.contains("interrupt-fallback = timer"))
    }
}
