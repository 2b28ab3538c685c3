// SPDX-License-Identifier: Apache-2.0
#if canImport(Glibc)
import Glibc
#endif
import AccelConfiguration
import AccelDaemon
import AccelCore
import AccelDriver
import AccelParts
import AccelReplay
import ArgumentParser

/// How to reach the chip. Each option overrides the configuration file.
struct DeviceOptions: ParsableArguments {
    @Option(help: "I2C bus number: the N of /dev/i2c-N. [default: 1]")
    var bus: Int?

    @Option(help: ArgumentHelp("7-bit I2C address in hex: 0x1c or 0x1d (SDO low or high) on the LIS302DL, 0x18 or 0x19 on the LIS3DH, LIS2DH12 and LIS331 parts, 0x1e or 0x1d on the LIS3DSH, 0x6a or 0x6b on the LSM6DS parts. [default: 0x1c]", valueName: "hex"))
    var address: String?

    @Flag(help: "Take the address even if a kernel driver has claimed it (I2C_SLAVE_FORCE).")
    var force = false

    @Flag(help: "Accept an adapter without I2C block reads (one transaction per register).")
    var allowByteReads = false

    @Option(help: ArgumentHelp("Read an accelerometer the kernel already drives, through its IIO buffer: iio:deviceN or the driver's name for the chip (lis3dh, mpu6050); 'auto' takes the only one there is. Same as backend = iio in [device].", valueName: "device"))
    var iio: String?

    @Option(help: ArgumentHelp("Run on the chip model instead of hardware, fed by a built-in motion (\(DeviceSource.builtInMotions.joined(separator: ", "))) or a trace file; alone, it means 'demo'.", valueName: "motion"), completion: .list(DeviceSource.builtInMotions))
    var simulate: String?

    @OptionGroup(title: "Traces (with --simulate TRACE)")
    var trace: TracePlaybackOptions

    @Option(help: ArgumentHelp("The part on the board, which WHO_AM_I cannot always tell (0x32 and 0x33 are shared by parts with different scales); with --simulate, the part the chip model plays. [default: identify by WHO_AM_I; LIS302DL with --simulate]", valueName: "part"),
            completion: .list(ChipProfile.partNames))
    var part: String?

    @Option(help: "Full scale in g, from the part's table (LIS302DL: 2 or 8; LIS3DH: 2, 4, 8 or 16). [default: the part's smallest]", completion: .list(fullScales))
    var range: Int?

    @Option(help: ArgumentHelp("Output data rate in Hz, from the part's table (LIS302DL: 100 or 400; LIS3DH: 1 to 1344, 5376 in low-power; LSM6DSO: 26 to 6660), or 'auto': the part's rate nearest 100 Hz (104 on the LSM6DS parts). [default: auto]", valueName: "hz|auto"),
            completion: .list(["auto"] + dataRates))
    var rate: RateChoice?

    @Option(help: ArgumentHelp("Power mode, where the part has several (LIS3DH: high-resolution, normal, low-power). [default: the part's first]", valueName: "mode"))
    var mode: String?

    @Option(help: ArgumentHelp("The GPIO line the chip's INT pin drives, CHIP:LINE (gpiochip0:17, gpiochip0:GPIO17) or a line name (GPIO17): the chip's data-ready or FIFO watermark then paces the reads, stamped with the edge's kernel time; with --simulate, 'model' is the chip model's pin. Same as interrupt in [device]. [default: none, the timer paces the reads]", valueName: "line"))
    var interrupt: String?

    @Option(help: ArgumentHelp("The chip's pin wired to that line: int1 or int2. [default: int1]", valueName: "pin"))
    var interruptPin: String?

    func validate() throws {
        if iio != nil && simulate != nil {
            throw ValidationError("--iio and --simulate each name where samples come from: give one of them")
        }
        if let address, parseAddress(address) == nil {
            throw ValidationError("--address \(address) is not a 7-bit hex address: \(ChipProfile.addressAdvice)")
        }
        if let part, ChipProfile.named(part) == nil {
            throw ValidationError(DriverError.unknownPart(part).description)
        }
        if let interrupt, interrupt != DeviceSettings.modelLine {
            do { _ = try GPIOLineSpec(parsing: interrupt) } catch { throw ValidationError("--\(error)") }
        }
        if let interruptPin, ChipProfile.InterruptPin(rawValue: interruptPin.lowercased()) == nil {
            throw ValidationError("--interrupt-pin \(interruptPin) is not a pin of the chip: use int1 or int2")
        }
        if interrupt == DeviceSettings.modelLine && simulate == nil {
            throw ValidationError("--interrupt model is the chip model's pin: it goes with --simulate; on hardware name the GPIO line (gpiochip0:17)")
        }
    }

    /// Applies the options given on the command line over `settings`, then
    /// checks range, rate and mode against the named part's table.
    func apply(to settings: inout DeviceSettings) throws {
        if let bus { settings.bus = bus }
        if let address { settings.address = parseAddress(address)! }
        if let part { settings.part = ChipProfile.named(part)!.name }
        if let range { settings.range = range }
        if let rate { settings.rate = rate.setting }
        if let mode { settings.mode = mode.lowercased() }
        if let interrupt { settings.interrupt = interrupt == "none" ? nil : interrupt }
        if let interruptPin { settings.interruptPin = ChipProfile.InterruptPin(rawValue: interruptPin.lowercased())! }
        // A simulation plays the LIS302DL unless told otherwise.
        if simulate != nil && settings.part == nil { settings.part = ChipProfile.lis302dl.name }
        if simulate != nil, let address, let problem = settings.profile?.simulatedAddressProblem(parseAddress(address)!) {
            throw ValidationError(problem)
        }
        if let profile = settings.profile, let (key, reason) = settings.problem(on: profile) {
            throw ValidationError("--\(key): \(reason)")
        }
    }

    func source(_ settings: DeviceSettings) -> DeviceSource {
        if let simulate { return .simulated(motion: simulate, playback: trace.playback) }
        if let iio { return .iio(device: iio == "auto" ? nil : iio) }
        if settings.backend == .iio { return .iio(device: settings.iioDevice) }
        return .i2c(bus: settings.bus, address: settings.address, force: force, allowByteReads: allowByteReads)
    }
}

extension RateChoice: ExpressibleByArgument {
    public init?(argument: String) { self.init(argument) }
}

/// The ranges and rates of the parts this build drives, for the shell completions.
let fullScales = Set(ChipProfile.supported.flatMap { $0.ranges.map(\.fullScale) }).sorted().map(String.init)
let dataRates = Set(ChipProfile.supported.flatMap(\.allRates)).sorted().map(String.init)

/// Prints an error as a person should read it and exits with its own code
/// (docs/ERRORS.md).
func exitWithError(_ error: Error) -> Never {
    let (message, code): (String, Int32) = switch error {
    case let e as BusError: (e.description, e.exitCode)
    case let e as DriverError: (e.description, e.exitCode)
    case let e as IIOError: (e.description, e.exitCode)
    case let e as GPIOError: (e.description, e.exitCode)
    case let e as Trace.FormatError: (e.description, 65)
    case let e as BagError: (e.description, 65)
    case let e as DeviceSource.MotionError: (e.description, 66)
    case let e as ConfigurationError: (e.description, 78)  // EX_CONFIG
    case let e as ValidationError: (e.message, 64)         // EX_USAGE
    case let e as Daemon.StartError: (e.description, e.exitCode)
    case let e as Fault.ParseError: (e.description, 64)
    default: ("\(error)", 1)
    }
    printError("acceld: \(message)")
    exit(code)
}
