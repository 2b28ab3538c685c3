// SPDX-License-Identifier: Apache-2.0
import Testing
import AccelCore
@testable import AccelDriver

#if canImport(Glibc)
import Glibc
#endif

/// These run the real CI2C against this machine's kernel. The positive
/// paths (a chip answering) run under QEMU with i2c-stub: docs/TESTING.md.
@Suite("I2C bus through CI2C and the kernel")
struct I2CBusTests {
    @Test("a bus that does not exist gives the 'no /dev/i2c-N' advice and its own exit code")
    func missingBus() {
        let error = #expect(throws: BusError.self) { try I2CBus(bus: 250, address: 0x1C) }
        #expect(error == .noSuchBus(path: "/dev/i2c-250"))
        #expect(error?.description.contains("enable I2C") == true)
        #expect(error?.description.contains("modprobe i2c-dev") == true)
        #expect(error?.exitCode == 69)
    }

    @Test("a node that is not an I2C adapter is refused as such (I2C_FUNCS ioctl fails with ENOTTY)")
    func notAnAdapter() {
        #expect(throws: BusError.notAnAdapter(path: "/dev/null")) { try I2CBus(path: "/dev/null", address: 0x1C) }
    }

    @Test("an address above 0x7f is refused with the 7-bit form to use")
    func eightBitAddress() {
        let error = #expect(throws: BusError.self) { try I2CBus(path: "/dev/null", address: 0xBA) }
        #expect(error?.description.contains("use 0x5d") == true)
    }

    @Test("errno maps to the cause a person can act on", arguments: [
        (EACCES, "'i2c' group"), (ENXIO, "SDO strap"), (EREMOTEIO, "0x1d with SDO high"),
        (EBUSY, "claimed by a kernel driver"), (EIO, "Input/output error"),
    ])
    func errnoAdvice(code: Int32, advice: String) {
        let error = BusError.from(errno: code, path: "/dev/i2c-1", address: 0x1C, operation: "read")
        #expect(error.description.contains(advice), "\(error)")
    }

    @Test("ENODEV is a missing bus when opening, but a silent address in a transfer (as i2c-stub reports it)")
    func enodev() {
        #expect(BusError.from(errno: ENODEV, path: "/dev/i2c-3", address: 0x1C, operation: "open") == .noSuchBus(path: "/dev/i2c-3"))
        #expect(BusError.from(errno: ENODEV, path: "/dev/i2c-3", address: 0x1D, operation: "read of register 0x0f")
                == .noAnswer(path: "/dev/i2c-3", address: 0x1D))
    }

    @Test("a missing bus, a permission problem and a silent address have distinct exit codes")
    func distinctExitCodes() {
        let codes = [ENOENT, EACCES, ENXIO, EBUSY, EIO, ENOTTY].map {
            BusError.from(errno: $0, path: "/dev/i2c-1", address: 0x1C, operation: "read").exitCode
        }
        #expect(Set(codes).count == codes.count)
    }
}
