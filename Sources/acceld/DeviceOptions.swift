#if canImport(Glibc)
import Glibc
#endif
import AccelDaemon
import AccelDriver
import ArgumentParser

/// How to reach the chip, shared by every subcommand that opens one.
struct DeviceOptions: ParsableArguments {
    @Option(help: "I2C bus number: the N of /dev/i2c-N.")
    var bus: Int = 1

    @Option(help: ArgumentHelp("7-bit I2C address in hex: 0x1c (SDO low) or 0x1d (SDO high).", valueName: "hex"))
    var address: String = "0x1c"

    @Flag(help: "Take the address even if a kernel driver has claimed it (I2C_SLAVE_FORCE).")
    var force = false

    @Flag(help: "Accept an adapter without I2C block reads (one transaction per register).")
    var allowByteReads = false

    @Option(help: ArgumentHelp("Run on the chip model instead of hardware, fed by a built-in motion (\(MotionScript.names.joined(separator: ", "))) or a trace file; alone, it means 'demo'.", valueName: "motion"))
    var simulate: String?

    @Option(help: "Full scale in g: 2 or 8.")
    var range: Int = 2

    @Option(help: "Output data rate in Hz: 100 or 400.")
    var rate: Int = 100

    func validate() throws {
        guard parseAddress(address) != nil else {
            throw ValidationError("--address \(address) is not a 7-bit hex address; use 0x1c or 0x1d (0x38/0x3a are the 8-bit forms of the same)")
        }
    }

    var source: DeviceSource {
        if let simulate { return .simulated(motion: simulate) }
        return .i2c(bus: bus, address: parseAddress(address)!, force: force, allowByteReads: allowByteReads)
    }

    var deviceConfiguration: DeviceConfiguration { DeviceConfiguration(range: range, rate: rate) }
}

/// Prints a bus or driver error as a person should read it and exits with
/// its own code (docs/ERRORS.md).
func exitWithDeviceError(_ error: Error) -> Never {
    let (message, code): (String, Int32) = switch error {
    case let e as BusError: (e.description, e.exitCode)
    case let e as DriverError: (e.description, e.exitCode)
    case let e as Trace.FormatError: (e.description, 65)
    case let e as DeviceSource.MotionError: (e.description, 66)
    case let e as ConfigurationError: (e.description, 78)  // EX_CONFIG
    default: ("\(error)", 1)
    }
    printError("acceld: \(message)")
    exit(code)
}
