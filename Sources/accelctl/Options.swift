// SPDX-License-Identifier: Apache-2.0
#if canImport(Glibc)
import Glibc
#endif
import AccelClient
import AccelConfiguration
import AccelCore
import AccelDriver
import AccelParts
import AccelProtocol
import AccelTools
import AccelVibration
import ArgumentParser

/// How to reach the chip directly (no daemon).
struct ChipOptions: ParsableArguments {
    @Option(help: "I2C bus number: the N of /dev/i2c-N.")
    var bus: Int = 1

    @Option(help: ArgumentHelp("7-bit I2C address in hex: 0x1c or 0x1d (SDO low or high) on the LIS302DL, 0x18 or 0x19 on the LIS3DH, LIS2DH12 and LIS331 parts, 0x1e or 0x1d on the LIS3DSH, 0x6a or 0x6b on the LSM6DS parts. [default: the part's first, else 0x1c]", valueName: "hex"))
    var address: String?

    @Option(help: ArgumentHelp("The part on the board, which WHO_AM_I cannot always tell (0x32 and 0x33 are shared by parts with different scales); with --simulate, the part the chip model plays. [default: identify by WHO_AM_I; LIS302DL with --simulate]", valueName: "part"),
            completion: .list(ChipProfile.partNames))
    var part: String?

    @Flag(help: "Take the address even if a kernel driver has claimed it (I2C_SLAVE_FORCE).")
    var force = false

    @Flag(help: "Accept an adapter without I2C block reads (one transaction per register).")
    var allowByteReads = false

    @Option(help: ArgumentHelp("Use the chip model instead of hardware, moved by a built-in motion (\(DeviceSource.builtInMotions.joined(separator: ", ")), or 'none' for an empty bus) or a trace file.", valueName: "motion"), completion: .list(DeviceSource.builtInMotions + ["none"]))
    var simulate: String?

    @Option(help: ArgumentHelp("With --simulate: the model's zero-g offset per axis, g, e.g. 0.03,-0.02,0.05. [default: 0.012,-0.008,0.018, as acceld --simulate plays it]", valueName: "x,y,z"))
    var modelOffset: String?

    @Option(help: ArgumentHelp("With --simulate: the model's sensitivity per axis relative to nominal, e.g. 1.02,0.98,1.01.", valueName: "x,y,z"))
    var modelGain: String?

    @Option(help: ArgumentHelp("With --simulate: the model's RMS noise per sample, g.", valueName: "g"))
    var modelNoise: Double = ChipModel.Imperfections.board.noise

    @Option(help: ArgumentHelp("With --simulate: an axis whose output is stuck (a broken part), x, y or z.", valueName: "axis"))
    var modelStuck: Axis?

    @Option(help: ArgumentHelp("With --simulate, a six-axis part: the gyroscope's zero-rate offset per axis, dps. [default: 0.6,-0.4,0.3, as acceld --simulate plays it]", valueName: "x,y,z"))
    var modelGyroOffset: String?

    @Option(help: ArgumentHelp("With --simulate, a six-axis part: the gyroscope's RMS noise per sample, dps.", valueName: "dps"))
    var modelGyroNoise: Double = ChipModel.Imperfections.board.gyroscopeNoise

    @Option(help: ArgumentHelp("With --simulate, a six-axis part: the rate the gyroscope's self-test adds per axis, dps (the datasheet allows 150..700).", valueName: "x,y,z"))
    var modelGyroSelfTest: String?

    func validate() throws {
        if let address, parseAddress(address) == nil {
            throw ValidationError("--address \(address) is not a 7-bit hex address: \(ChipProfile.addressAdvice)")
        }
        if let part, ChipProfile.named(part) == nil { throw ValidationError(DriverError.unknownPart(part).description) }
        if simulate != nil, let address = address.flatMap(parseAddress), let problem = profile?.simulatedAddressProblem(address) {
            throw ValidationError(problem)
        }
        for (name, text) in [("--model-offset", modelOffset), ("--model-gain", modelGain), ("--model-gyro-offset", modelGyroOffset),
                             ("--model-gyro-self-test", modelGyroSelfTest)] where text != nil {
            guard parseVector(text!) != nil else { throw ValidationError("\(name) \(text!) is not three numbers x,y,z") }
        }
    }

    var location: String { simulate.map { "chip model (\($0))" } ?? "/dev/i2c-\(bus)" }

    /// The named part; with --simulate the model plays the LIS302DL unless told.
    var profile: ChipProfile? { part.flatMap(ChipProfile.named) ?? (simulate != nil ? .lis302dl : nil) }

    /// --address, else the named part's first address, else the LIS302DL's.
    var resolvedAddress: UInt8 { address.flatMap(parseAddress) ?? profile?.addresses[0] ?? 0x1C }

    /// acceld's model (`ChipModel.Imperfections.board`), with what the
    /// options change.
    var imperfections: ChipModel.Imperfections {
        var imperfections = ChipModel.Imperfections.board
        imperfections.noise = modelNoise
        if let offset = modelOffset.flatMap(parseVector) { imperfections.offset = offset }
        if let gain = modelGain.flatMap(parseVector) { imperfections.sensitivityError = gain - Vector3(1, 1, 1) }
        if let modelStuck { imperfections.stuckOutputs = [modelStuck: 3] }
        if let offset = modelGyroOffset.flatMap(parseVector) { imperfections.gyroscopeOffset = offset }
        imperfections.gyroscopeNoise = modelGyroNoise
        imperfections.gyroscopeSelfTestRate = modelGyroSelfTest.flatMap(parseVector)
        return imperfections
    }

    /// The bus with the chip on it; refuses while acceld answers on `socket`
    /// (it owns the chip).
    func openBus(time: TimeSource, socket: String) throws -> RegisterBus {
        if let simulate {
            let model = ChipModel(profile: profile ?? .lis302dl,
                                  motion: simulate == "none" ? MotionScript.rest() : try DeviceSource.motion(named: simulate, playedBy: profile ?? .lis302dl),
                                  time: time, imperfections: imperfections, location: location)
            model.present = simulate != "none"
            return model
        }
        if (try? DaemonConnection(path: socket)) != nil {
            throw ToolError.daemonOwnsChip(socket)
        }
        return try I2CBus(bus: bus, address: resolvedAddress, force: force, allowByteReads: allowByteReads)
    }

    func openDriver(time: TimeSource, socket: String) throws -> Accelerometer {
        try Accelerometer(bus: try openBus(time: time, socket: socket), time: time, part: profile)
    }

    /// Opens the chip, configures it (its smallest range, at `rate`: one
    /// of its rates, or nil for the one nearest 100 Hz), runs `body`, and
    /// powers it down again (a direct command leaves the chip as acceld
    /// would find it at start).
    func withChip<T>(time: TimeSource, socket: String, rate: Int? = nil,
                     _ body: (Accelerometer) throws -> T) throws -> T {
        let driver = try openDriver(time: time, socket: socket)
        let mode = driver.profile.modes[0]
        if let rate, !mode.rates.contains(where: { $0.hertz == rate }) {
            throw DriverError.unsupportedRate(rate, part: driver.profile.name, mode: mode.name, available: mode.rates.map(\.hertz))
        }
        try driver.configure(driver.defaultConfiguration(rate: rate))
        defer { try? driver.powerDown() }
        return try body(driver)
    }
}

/// acceld's socket: the daemon commands talk to it, the direct ones refuse
/// to touch the chip while a daemon answers there.
struct SocketOption: ParsableArguments {
    @Option(help: ArgumentHelp("acceld's socket; ACCELD_SOCKET sets the default.", valueName: "path"))
    var socket: String = DaemonConnection.defaultSocket

    func connect() throws -> DaemonConnection { try DaemonConnection(path: socket) }
}

enum ToolError: Error, CustomStringConvertible {
    case daemonOwnsChip(String)
    case nothingFound(String)
    case selfTestFailed
    case usage(String)
    /// A measurement that needs the board still saw it move.
    case boardMoved(String)
    /// acceld answers, but its protocol lacks what the command needs.
    case daemonTooOld(String)

    var description: String {
        switch self {
        case .daemonOwnsChip(let path):
            "acceld is running and owns the chip (it answers on \(path)): stop it first with 'sudo systemctl stop acceld.socket acceld', or use the daemon's commands (accelctl status, events, watch)"
        case .nothingFound(let verdict): verdict
        case .selfTestFailed: "self-test FAILED"
        case .usage(let message): message
        case .boardMoved(let message): message
        case .daemonTooOld(let message): message
        }
    }

    var exitCode: Int32 {
        switch self {
        case .daemonOwnsChip: 75
        case .nothingFound: 68
        case .selfTestFailed: 1
        case .usage: 64
        case .boardMoved: 1
        case .daemonTooOld: 76  // EX_PROTOCOL, as ClientError.incompatible
        }
    }
}

extension Axis: ExpressibleByArgument {}

func parseVector(_ text: String) -> Vector3? {
    let parts = text.split(separator: ",").compactMap { Double($0.trimmingCharacters()) }
    return parts.count == 3 ? Vector3(parts[0], parts[1], parts[2]) : nil
}

/// Prints the error as a sentence and exits with its code (docs/ACCELCTL.md).
func fail(_ error: Error) -> Never {
    let (message, code): (String, Int32) = switch error {
    case let e as ToolError: (e.description, e.exitCode)
    case let e as BusError: (e.description, e.exitCode)
    case let e as DriverError: (e.description, e.exitCode)
    case let e as GPIOError: (e.description, e.exitCode)
    case let e as ClientError: (e.description, e.exitCode)
    case let e as ProtocolError: (e.message, 64)
    case let e as Trace.FormatError: (e.description, 65)
    case let e as DeviceSource.MotionError: (e.description, 66)
    case let e as ConfigurationError: (e.description, 78)
    case let e as FileWriteError: (e.description, 73)
    case let e as VibrationSettingsError: (e.description, 64)
    case let e as SpectrumChartError: (e.description, 65)
    default: ("\(error)", 1)
    }
    printError("accelctl: \(message)")
    exit(code)
}

/// Runs `body`, turning any error into its message and exit code.
@discardableResult
func guarded<T>(_ body: () throws -> T) -> T {
    do { return try body() } catch { fail(error) }
}

func writeLine(_ text: String, to fd: Int32 = 1) {
    writeBytes(Array((text + "\n").utf8)[...], to: fd)
}

func writeBytes(_ bytes: ArraySlice<UInt8>, to fd: Int32 = 1) {
    bytes.withUnsafeBytes { raw in
        var offset = 0
        while offset < raw.count {
            let n = write(fd, raw.baseAddress! + offset, raw.count - offset)
            if n <= 0 { return }
            offset += n
        }
    }
}

func printError(_ message: String) {
    var line = message + "\n"
    line.withUTF8 { _ = write(2, $0.baseAddress, $0.count) }
}

/// A progress bar on standard error when it is a terminal; a line per
/// quarter otherwise (logs stay readable).
struct ProgressBar {
    let label: String
    private let terminal = isatty(2) != 0
    private var lastQuarter = -1

    init(_ label: String) { self.label = label }

    mutating func show(_ fraction: Double, detail: String = "") {
        let f = min(max(fraction, 0), 1)
        if terminal {
            let filled = Int(f * 30)
            printRaw("\r\(label) [" + String(repeating: "#", count: filled) + String(repeating: ".", count: 30 - filled) + "] \(Int(f * 100))% \(detail)\u{1B}[K")
        } else if Int(f * 4) > lastQuarter {
            lastQuarter = Int(f * 4)
            printError("\(label): \(Int(f * 100))% \(detail)")
        }
    }

    func finish(_ message: String = "done") {
        if terminal { printRaw("\r\(label): \(message)\u{1B}[K\n") } else { printError("\(label): \(message)") }
    }

    private func printRaw(_ text: String) {
        var t = text
        t.withUTF8 { _ = write(2, $0.baseAddress, $0.count) }
    }
}
