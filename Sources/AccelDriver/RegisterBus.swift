// SPDX-License-Identifier: Apache-2.0
import AccelCore
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The seam between a chip driver and whatever carries its registers: a real
/// I2C adapter (`I2CBus`) or the register-level `ChipModel`.
///
/// Sub-addresses are passed as the chip sees them: a caller that wants the
/// LIS302DL to auto-increment sets bit 7 itself, exactly as on the wire.
/// Every method throws `BusError`.
public protocol RegisterBus: AnyObject {
    /// Where the chip is, for messages: "/dev/i2c-1 at 0x1c", "chip model".
    var location: String { get }
    func readRegister(_ subAddress: UInt8) throws -> UInt8
    func writeRegister(_ subAddress: UInt8, _ value: UInt8) throws
    /// One transaction: write `subAddress`, then read `buffer.count` bytes
    /// (at most `maximumReadLength`).
    func readBlock(from subAddress: UInt8, into buffer: UnsafeMutableRawBufferPointer) throws
    /// The longest read one transaction can carry: 32 bytes on an adapter
    /// limited to SMBus block reads (i2c-stub), far more with plain I2C.
    var maximumReadLength: Int { get }
    /// The bus's clock in Hz when the system says (a device tree's
    /// `clock-frequency`); nil when unknown, or for a bus with no wire.
    var clockFrequency: Int? { get }
}

extension RegisterBus {
    public var clockFrequency: Int? { nil }

    public func readBlock(from subAddress: UInt8, count: Int) throws -> [UInt8] {
        var bytes = [UInt8](repeating: 0, count: count)
        try bytes.withUnsafeMutableBytes { try readBlock(from: subAddress, into: $0) }
        return bytes
    }
}

/// Everything that can go wrong between us and a chip, each with the advice
/// that fixes it most often. `exitCode` gives the command-line tools one
/// distinct status per cause (documented in docs/ERRORS.md).
public enum BusError: Error, Equatable, CustomStringConvertible, Sendable {
    /// The adapter node does not exist.
    case noSuchBus(path: String)
    /// The node exists but this user may not open it.
    case permissionDenied(path: String)
    /// The node is not an I2C adapter (ioctl says ENOTTY).
    case notAnAdapter(path: String)
    /// A kernel driver is bound to the address.
    case addressBusy(path: String, address: UInt8)
    /// No acknowledge: nothing at this address, or it stopped answering.
    case noAnswer(path: String, address: UInt8)
    /// The adapter cannot do what we need.
    case unsupported(path: String, what: String)
    /// Any other failed transfer, with the errno that came back.
    case transfer(path: String, operation: String, errno: Int32)

    public var description: String {
        switch self {
        case .noSuchBus(let path):
            return "no I2C bus at \(path): enable I2C on the board (Raspberry Pi: dtparam=i2c_arm=on in config.txt, or raspi-config > Interface Options > I2C), load the i2c-dev module (modprobe i2c-dev), and check the bus number with 'ls /dev/i2c-*'. No chip at hand? --simulate runs on the chip model"
        case .permissionDenied(let path):
            return "permission denied opening \(path): add this user to the 'i2c' group (sudo usermod -aG i2c $USER, then log in again), or run as the acceld service user"
        case .notAnAdapter(let path):
            return "\(path) is not an I2C adapter (the kernel rejected I2C ioctls): pass a /dev/i2c-N node"
        case .addressBusy(let path, let address):
            if let bus = Int(path.split(separator: "-").last ?? ""), let owner = KernelOwner(bus: bus, address: address) {
                return "address \(hex(address)) on \(path) is claimed: \(owner.advice); or pass --force to share it with the driver (both then write the chip's registers)"
            }
            return "address \(hex(address)) on \(path) is claimed by a kernel driver (often lis3lv02d_i2c or st_accel_i2c): unbind it via /sys/bus/i2c/drivers, or pass --force to take it anyway"
        case .noAnswer(let path, let address):
            return "nothing answers at \(hex(address)) on \(path): check power and wiring (SDA, SCL, GND), and the SDO strap: the LIS302DL is at 0x1c with SDO low and 0x1d with SDO high (0x38/0x3a are the same addresses in 8-bit form)"
        case .unsupported(let path, let what):
            return "the adapter behind \(path) lacks \(what): use an adapter with I2C block reads (every Raspberry Pi I2C controller has them)"
        case .transfer(let path, let operation, let code):
            return "I2C \(operation) on \(path) failed: \(String(cString: strerror(code))) (errno \(code)); a loose wire or a bus shared with a misbehaving device is the usual cause"
        }
    }

    /// Maps an errno from `operation` on `path` at `address` to its cause.
    /// ENODEV means "no such adapter" when opening the node, but "no device
    /// at that address" from a transfer (i2c-stub and some adapters say so
    /// instead of NACKing with ENXIO): the kernel-in-the-loop test caught it.
    public static func from(errno code: Int32, path: String, address: UInt8, operation: String) -> BusError {
        switch code {
        case ENOENT: .noSuchBus(path: path)
        case ENODEV: operation == "open" ? .noSuchBus(path: path) : .noAnswer(path: path, address: address)
        case EACCES, EPERM: .permissionDenied(path: path)
        case ENOTTY: .notAnAdapter(path: path)
        case EBUSY: .addressBusy(path: path, address: address)
        // NACK: ENXIO from most adapters, EREMOTEIO from the Raspberry Pi's
        // i2c-bcm2835 (and ENODEV from i2c-stub, above).
        case ENXIO, EREMOTEIO: .noAnswer(path: path, address: address)
        case EOPNOTSUPP: .unsupported(path: path, what: operation)
        default: .transfer(path: path, operation: operation, errno: code)
        }
    }

    /// Distinct exit codes for the command-line tools (sysexits.h where one fits).
    public var exitCode: Int32 {
        switch self {
        case .noSuchBus: 69          // EX_UNAVAILABLE
        case .permissionDenied: 77   // EX_NOPERM
        case .notAnAdapter: 66       // EX_NOINPUT
        case .addressBusy: 75        // EX_TEMPFAIL
        case .noAnswer: 68           // EX_NOHOST
        case .unsupported: 72        // EX_OSFILE
        case .transfer: 74           // EX_IOERR
        }
    }

    /// True for causes that can heal by themselves (a glitch, a loose wire):
    /// the daemon retries these; the rest need a person.
    public var isTransient: Bool {
        switch self {
        case .noAnswer, .transfer: true
        default: false
        }
    }
}
