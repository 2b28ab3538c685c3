// SPDX-License-Identifier: Apache-2.0
#if canImport(Glibc)
import Glibc
#endif
import AccelDaemon
import AccelDriver
import ArgumentParser

/// How to reach the chip. Each option overrides the configuration file.
struct DeviceOptions: ParsableArguments {
    @Option(help: "I2C bus number: the N of /dev/i2c-N. [default: 1]")
    var bus: Int?

    @Option(help: ArgumentHelp("7-bit I2C address in hex: 0x1c (SDO low) or 0x1d (SDO high). [default: 0x1c]", valueName: "hex"))
    var address: String?

    @Flag(help: "Take the address even if a kernel driver has claimed it (I2C_SLAVE_FORCE).")
    var force = false

    @Flag(help: "Accept an adapter without I2C block reads (one transaction per register).")
    var allowByteReads = false

    @Option(help: ArgumentHelp("Run on the chip model instead of hardware, fed by a built-in motion (\(MotionScript.names.joined(separator: ", "))) or a trace file; alone, it means 'demo'.", valueName: "motion"), completion: .list(MotionScript.names))
    var simulate: String?

    @Option(help: "Full scale in g: 2 or 8. [default: 2]", completion: .list(fullScales))
    var range: Int?

    @Option(help: "Output data rate in Hz: 100 or 400. [default: 100]", completion: .list(dataRates))
    var rate: Int?

    func validate() throws {
        if let address, parseAddress(address) == nil {
            throw ValidationError("--address \(address) is not a 7-bit hex address; use 0x1c or 0x1d (0x38/0x3a are the 8-bit forms of the same)")
        }
    }

    /// Applies the options given on the command line over `settings`.
    func apply(to settings: inout DeviceSettings) {
        if let bus { settings.bus = bus }
        if let address { settings.address = parseAddress(address)! }
        if let range { settings.range = range }
        if let rate { settings.rate = rate }
    }

    func source(_ settings: DeviceSettings) -> DeviceSource {
        if let simulate { return .simulated(motion: simulate) }
        return .i2c(bus: settings.bus, address: settings.address, force: force, allowByteReads: allowByteReads)
    }
}

/// The ranges and rates of the parts this build drives, for the shell completions.
let fullScales = Set(ChipProfile.supported.flatMap { $0.ranges.map(\.fullScale) }).sorted().map(String.init)
let dataRates = Set(ChipProfile.supported.flatMap { $0.rates.map(\.hertz) }).sorted().map(String.init)

/// Prints an error as a person should read it and exits with its own code
/// (docs/ERRORS.md).
func exitWithError(_ error: Error) -> Never {
    let (message, code): (String, Int32) = switch error {
    case let e as BusError: (e.description, e.exitCode)
    case let e as DriverError: (e.description, e.exitCode)
    case let e as Trace.FormatError: (e.description, 65)
    case let e as DeviceSource.MotionError: (e.description, 66)
    case let e as ConfigurationError: (e.description, 78)  // EX_CONFIG
    case let e as Daemon.StartError: (e.description, e.exitCode)
    case let e as Fault.ParseError: (e.description, 64)
    default: ("\(error)", 1)
    }
    printError("acceld: \(message)")
    exit(code)
}
