// SPDX-License-Identifier: Apache-2.0
#if canImport(Glibc)
import Glibc
#endif
import AccelConfiguration
import AccelDaemon
import AccelCore
import AccelDriver
import AccelParts
import ArgumentParser
import Logging

/// The daemon. The default subcommand: `acceld --simulate` runs it.
struct RunCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "run",
        abstract: "Run the daemon: sample the chip and serve clients on a Unix socket (the default).",
        discussion: """
            Settings come from the configuration file, then the options here.
            Without --simulate acceld opens the real bus, and a missing bus,
            a permission problem or a wrong chip stop it with their own
            message and exit code (docs/ERRORS.md); it never falls back to
            simulation by itself.

            Examples:
              acceld --simulate --socket /tmp/acceld.sock       # the demo motion
              acceld --config /etc/acceld/acceld.conf           # a real chip
              acceld --check-config --config my.conf            # check a file and exit
            """
    )

    static let defaultConfigurationPath = "/etc/acceld/acceld.conf"

    @OptionGroup var device: DeviceOptions

    @Option(help: ArgumentHelp("Configuration file. [default: \(defaultConfigurationPath) if it exists]", valueName: "file"))
    var config: String?

    @Option(help: ArgumentHelp("Socket path, overriding [socket] path.", valueName: "path"))
    var socket: String?

    @Option(help: ArgumentHelp("Calibration file, overriding [daemon] calibration-file.", valueName: "path"))
    var calibrationFile: String?

    @Flag(help: "Check the configuration (file and options) and exit: 0 if it is good.")
    var checkConfig = false

    @Flag(help: "Wait for a missing device instead of exiting.")
    var waitForDevice = false

    @Flag(help: "Let the chip watch for motion while the board is still and no client watches frames; needs --interrupt. Same as wake-on-motion in [power].")
    var wakeOnMotion = false

    @Option(help: ArgumentHelp("With --wake-on-motion: how long the board must be still first, s. [default: 30]", valueName: "seconds"))
    var stillSeconds: Double?

    @Option(help: ArgumentHelp("With --wake-on-motion: the motion that wakes it, g, gravity filtered out. [default: 0.1]", valueName: "g"))
    var wakeThreshold: Double?

    @Option(name: .customLong("fault"), help: ArgumentHelp("With --simulate: inject a fault, KIND@START[+SECONDS] (eio, gone, reset, stuck). Repeatable.", valueName: "fault"))
    var faults: [String] = []

    @Flag(help: "With --simulate TRACE: play the trace again from its start each time it ends (without it, the chip model holds its last row). Either way a device event trace-end says when it ended.")
    var loop = false

    @Option(help: "Log level: trace, debug, info, notice, warning, error, critical.")
    var logLevel: String = "info"

    func run() throws {
        guard let level = Logger.Level(rawValue: logLevel) else {
            exitWithError(ValidationError("--log-level \(logLevel) is not one of trace, debug, info, notice, warning, error, critical"))
        }
        LoggingSystem.bootstrap { label in
            var handler = StreamLogHandler.standardError(label: label)
            handler.logLevel = level
            return handler
        }
        var configuration = Configuration()
        var path = config
        if path == nil, access(Self.defaultConfigurationPath, R_OK) == 0 { path = Self.defaultConfigurationPath }
        let faults: [Fault]
        do {
            if let path { configuration = try Configuration(contentsOf: path) }
            faults = try self.faults.map(Fault.init(parsing:))
            try device.apply(to: &configuration.device)
            try applyPower(to: &configuration)
        } catch {
            exitWithError(error)
        }
        if let socket { configuration.socket.path = socket }
        if let calibrationFile { configuration.daemon.calibrationFile = calibrationFile }
        if waitForDevice { configuration.daemon.waitForDevice = true }
        let source = device.source(configuration.device)
        if checkConfig {
            let wanted = configuration.device.configuration
            let rate = switch (configuration.device.rate, configuration.device.profile) {
            case (nil, nil): "its rate nearest \(ChipProfile.preferredRate) Hz (auto)"
            case (nil, _): "\(wanted.rate) Hz (auto)"
            default: "\(wanted.rate) Hz"
            }
            print("configuration OK\(path.map { " (\($0))" } ?? " (built-in defaults)"): \(configuration.device.part ?? "the part WHO_AM_I names") on \(source), ±\(wanted.range) g, \(rate), socket \(configuration.socket.path)")
            return
        }
        var options = Daemon.Options(configuration: configuration, configurationPath: path, source: source)
        options.faults = faults
        if loop {
            guard case .simulated = source else { exitWithError(ValidationError("--loop plays a simulated trace again: it goes with --simulate TRACE")) }
            options.loop = true
        }
        do {
            try Daemon(options: options, environment: currentEnvironment()).run()
        } catch {
            exitWithError(error)
        }
    }
}

extension RunCommand {
    /// The [power] options over the file's, checked against the device settings.
    func applyPower(to configuration: inout Configuration) throws {
        if wakeOnMotion { configuration.power.wakeOnMotion = true }
        if let stillSeconds {
            guard (1...86_400).contains(stillSeconds) else { throw ValidationError("--still-seconds \(stillSeconds) is out of range: give 1 to 86400 s") }
            configuration.power.stillSeconds = stillSeconds
        }
        if let wakeThreshold {
            guard (0.02...4).contains(wakeThreshold) else { throw ValidationError("--wake-threshold \(wakeThreshold) is out of range: give 0.02 to 4 g") }
            configuration.power.wakeThreshold = wakeThreshold
        }
        if let reason = configuration.power.problem(with: configuration.device, fix: "give --interrupt CHIP:LINE (with --simulate, --interrupt model)") {
            throw ValidationError("--" + reason)
        }
    }
}

func currentEnvironment() -> [String: String] {
    var result: [String: String] = [:]
    var pointer = environ
    while let entry = pointer.pointee {
        let text = String(cString: entry)
        if let equals = text.firstIndex(of: "=") {
            result[String(text[..<equals])] = String(text[text.index(after: equals)...])
        }
        pointer += 1
    }
    return result
}
