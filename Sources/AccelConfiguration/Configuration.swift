// SPDX-License-Identifier: Apache-2.0
import AccelCore
import AccelDriver
import AccelMotion

/// Everything a configuration file can set. Defaults are the ones in
/// Config/acceld.conf (a test keeps the two equal).
public struct Configuration: Sendable, Equatable {
    public var device = DeviceSettings()
    public var motion = MotionSettings()
    public var socket = SocketSettings()
    public var daemon = DaemonSettings()
    public var gateway = GatewaySettings()
    public var power = PowerSettings()
    public init() {}
}

public struct DeviceSettings: Sendable, Equatable {
    /// How acceld reaches the chip: its registers on i2c-dev, or the
    /// kernel's driver through IIO.
    public enum Backend: String, Sendable, CaseIterable { case i2c, iio }
    public var backend = Backend.i2c
    /// With the IIO backend: `iio:deviceN` or the driver's name for the
    /// chip; nil takes the only IIO accelerometer there is.
    public var iioDevice: String?
    public var bus = 1
    public var address: UInt8 = 0x1C
    /// The part on the board; nil identifies it by WHO_AM_I, which works
    /// only where one part answers with that value.
    public var part: String?
    /// Full scale in g; nil is the part's smallest.
    public var range: Int?
    /// Output data rate in Hz; nil (`auto`) is the part's rate nearest
    /// 100 Hz (`ChipProfile.automaticRate`), 100 while the part is unknown.
    public var rate: Int?
    /// A mode of the part's; nil is the part's first.
    public var mode: String?
    public var mountMatrix = MountMatrix.identity
    /// Where the chip's INT pin is wired (`GPIOLineSpec`: CHIP:LINE or a
    /// line name; `model` with --simulate); nil: the timer paces the reads.
    public var interrupt: String?
    public var interruptPin = ChipProfile.InterruptPin.int1
    /// interrupt-fallback = timer: go on with the timer when the line is
    /// silent at start or lost later.
    public var interruptFallback = false
    public init() {}

    /// The named part's profile, if one is named.
    public var profile: ChipProfile? { part.flatMap(ChipProfile.named) }

    /// Range, rate and mode to configure, with the part's defaults filled in.
    public var configuration: DeviceConfiguration {
        DeviceConfiguration(range: range ?? profile?.ranges[0].fullScale ?? 2,
                            rate: rate ?? profile?.automaticRate(mode: mode) ?? ChipProfile.preferredRate, mode: mode,
                            interruptPin: interrupt == nil ? nil : interruptPin)
    }

    /// How the rate was chosen, for the logs.
    public var rateOrigin: String { rate == nil ? "auto: the part's rate nearest \(ChipProfile.preferredRate) Hz" : "configured" }

    /// `interrupt = model`: with --simulate, the chip model's own pin.
    public static let modelLine = "model"

    /// Which setting the named part cannot run, and why; nil when it can.
    public func problem(on profile: ChipProfile) -> (key: String, reason: String)? {
        let wanted = configuration
        guard let mode = profile.mode(named: wanted.mode) else {
            return ("mode", "'\(wanted.mode ?? "")' is not a mode of the \(profile.name): choose one of " + profile.modes.map(\.name).joined(separator: ", "))
        }
        if profile.range(fullScale: wanted.range) == nil {
            return ("range", "±\(wanted.range) g is not available on the \(profile.name): choose one of " + profile.ranges.map { String($0.fullScale) }.joined(separator: ", "))
        }
        if !mode.rates.contains(where: { $0.hertz == wanted.rate }) {
            return ("rate", "\(wanted.rate) Hz is not available on the \(profile.name) in \(mode.name) mode: choose one of " + mode.rates.map { String($0.hertz) }.joined(separator: ", "))
        }
        if interrupt != nil, profile.interruptPins?.signals(on: interruptPin).contains(.dataReady) != true {
            let error = DriverError.interruptNotRoutable(part: profile.name, pin: interruptPin.label, signal: "data-ready",
                                                         alternatives: ChipProfile.InterruptPin.allCases.filter { profile.interruptPins?.signals(on: $0).contains(.dataReady) == true }.map(\.label))
            return ("interrupt-pin", "\(error)")
        }
        return nil
    }
}

/// A configuration file problem, with the file and line.
public struct ConfigurationError: Error, Equatable, CustomStringConvertible {
    public let source: String
    public let line: Int
    public let message: String
    /// "file:line: message", or "file: message" for the file as a whole (line 0).
    public var description: String { line > 0 ? "\(source):\(line): \(message)" : "\(source): \(message)" }
}

/// One settable key: where it lives, how to parse it, what it means.
struct ConfigKey {
    let section: String
    let name: String
    let help: String
    /// Parses `text` into the configuration, or returns why it cannot.
    let set: (inout Configuration, String) -> String?
    let get: (Configuration) -> String

    var fullName: String { "[\(section)] \(name)" }

    static func number(_ section: String, _ name: String, _ path: WritableKeyPath<Configuration, Double>,
                       _ allowed: ClosedRange<Double>, unit: String, _ help: String) -> ConfigKey {
        ConfigKey(section: section, name: name, help: help, set: { config, text in
            guard let value = Double(text), value.isFinite else { return "'\(text)' is not a number (\(unit))" }
            guard allowed.contains(value) else {
                return "\(text) is out of range: allowed \(fixed(allowed.lowerBound, 3))..\(fixed(allowed.upperBound, 3)) \(unit)"
            }
            config[keyPath: path] = value
            return nil
        }, get: { String($0[keyPath: path]) })
    }

    /// A value from a list, or `auto` (nil) for the part's own choice.
    static func automatic<Value>(_ section: String, _ name: String, _ path: WritableKeyPath<Configuration, Value?>,
                                 choices: [String], canonical: @escaping (String) -> Value?, _ help: String) -> ConfigKey {
        ConfigKey(section: section, name: name, help: help, set: { config, text in
            if text == "auto" {
                config[keyPath: path] = nil
                return nil
            }
            guard choices.contains(where: { $0.uppercased() == text.uppercased() }), let value = canonical(text) else {
                return "'\(text)' is not one of auto, " + choices.joined(separator: ", ")
            }
            config[keyPath: path] = value
            return nil
        }, get: { $0[keyPath: path].map { "\($0)" } ?? "auto" })
    }

    static func text(_ section: String, _ name: String, _ path: WritableKeyPath<Configuration, String>, _ help: String) -> ConfigKey {
        ConfigKey(section: section, name: name, help: help, set: { config, text in
            config[keyPath: path] = text == "\"\"" ? "" : text
            return nil
        }, get: { $0[keyPath: path] })
    }

    static func flag(_ section: String, _ name: String, _ path: WritableKeyPath<Configuration, Bool>, _ help: String) -> ConfigKey {
        ConfigKey(section: section, name: name, help: help, set: { config, text in
            switch text {
            case "true", "yes", "on": config[keyPath: path] = true
            case "false", "no", "off": config[keyPath: path] = false
            default: return "'\(text)' is not a yes/no value: use true or false"
            }
            return nil
        }, get: { String($0[keyPath: path]) })
    }

    static func integer(_ section: String, _ name: String, _ path: WritableKeyPath<Configuration, Int>,
                        _ allowed: [Int]? = nil, within: ClosedRange<Int>? = nil, _ help: String) -> ConfigKey {
        ConfigKey(section: section, name: name, help: help, set: { config, text in
            guard let value = Int(text) else { return "'\(text)' is not a whole number" }
            if let allowed, !allowed.contains(value) {
                return "\(value) is not one of " + allowed.map(String.init).joined(separator: ", ")
            }
            if let within, !within.contains(value) { return "\(value) is out of range: allowed \(within.lowerBound)..\(within.upperBound)" }
            config[keyPath: path] = value
            return nil
        }, get: { String($0[keyPath: path]) })
    }
}

extension Configuration {
    /// The table of keys. Adding a tunable is adding a line here, to
    /// Config/acceld.conf and to docs/CONFIG.md.
    static var keys: [ConfigKey] {
        [
            ConfigKey(section: "device", name: "backend", help: "i2c (the chip's registers on i2c-dev) or iio (the kernel's driver)", set: { config, text in
                guard let backend = DeviceSettings.Backend(rawValue: text) else { return "'\(text)' is not a backend: use i2c or iio" }
                config.device.backend = backend
                return nil
            }, get: { $0.device.backend.rawValue }),
            ConfigKey(section: "device", name: "iio-device", help: "with backend = iio: iio:deviceN or the driver's name for the chip", set: { config, text in
                config.device.iioDevice = text == "auto" ? nil : text
                return nil
            }, get: { $0.device.iioDevice ?? "auto" }),
            .integer("device", "bus", \.device.bus, within: 0...1023, "I2C bus number, the N in /dev/i2c-N"),
            ConfigKey(section: "device", name: "address", help: "7-bit I2C address in hex", set: { config, text in
                guard let address = parseAddress(text) else { return "'\(text)' is not a 7-bit hex address: \(ChipProfile.addressAdvice)" }
                config.device.address = address
                return nil
            }, get: { hex($0.device.address) }),
            .automatic("device", "part", \.device.part, choices: ChipProfile.partNames, canonical: { ChipProfile.named($0)?.name },
                       "the part on the board; auto reads WHO_AM_I"),
            .automatic("device", "range", \.device.range, choices: Set(ChipProfile.supported.flatMap { $0.ranges.map(\.fullScale) }).sorted().map(String.init),
                       canonical: { Int($0) }, "full scale in g; auto is the part's smallest"),
            .automatic("device", "rate", \.device.rate, choices: Set(ChipProfile.supported.flatMap(\.allRates)).sorted().map(String.init),
                       canonical: { Int($0) }, "output data rate in Hz; auto is the part's rate nearest 100 Hz"),
            .automatic("device", "mode", \.device.mode, choices: Set(ChipProfile.supported.flatMap { $0.modes.map(\.name) }).sorted(),
                       canonical: { $0.lowercased() }, "power mode; auto is the part's first"),
            ConfigKey(section: "device", name: "interrupt", help: "the GPIO line the chip's INT pin drives (CHIP:LINE or a line name); none: the timer paces the reads", set: { config, text in
                guard text != "none" else { config.device.interrupt = nil; return nil }
                if text != DeviceSettings.modelLine {
                    do { _ = try GPIOLineSpec(parsing: text) } catch { return "\(error)" }
                }
                config.device.interrupt = text
                return nil
            }, get: { $0.device.interrupt ?? "none" }),
            ConfigKey(section: "device", name: "interrupt-pin", help: "the chip's pin wired to that line: int1 or int2", set: { config, text in
                guard let pin = ChipProfile.InterruptPin(rawValue: text.lowercased()) else { return "'\(text)' is not a pin of the chip: use int1 or int2" }
                config.device.interruptPin = pin
                return nil
            }, get: { $0.device.interruptPin.rawValue }),
            ConfigKey(section: "device", name: "interrupt-fallback", help: "timer: go on with the timer when the line is silent or lost; none: stop", set: { config, text in
                guard text == "timer" || text == "none" else { return "'\(text)' is not a fallback: use timer or none" }
                config.device.interruptFallback = text == "timer"
                return nil
            }, get: { $0.device.interruptFallback ? "timer" : "none" }),
            ConfigKey(section: "device", name: "mount-matrix", help: "chip axes to board axes, IIO form", set: { config, text in
                do { config.device.mountMatrix = try MountMatrix(parsing: text) } catch { return "\(error)" }
                return nil
            }, get: { $0.device.mountMatrix.description }),

            ConfigKey(section: "gravity", name: "filter", help: "classic, exponential or adaptive", set: { config, text in
                guard let filter = GravitySettings.Filter(rawValue: text) else {
                    return "'\(text)' is not a filter: choose " + GravitySettings.Filter.allCases.map(\.rawValue).joined(separator: ", ")
                }
                config.motion.gravity.filter = filter
                return nil
            }, get: { $0.motion.gravity.filter.rawValue }),
            .number("gravity", "cutoff-hz", \.motion.gravity.cutoffHz, 0.01...50, unit: "Hz", "low-pass cut-off (adaptive: while |a| is near 1 g)"),
            .number("gravity", "motion-cutoff-hz", \.motion.gravity.motionCutoffHz, 0.001...50, unit: "Hz", "adaptive: cut-off while accelerated"),
            .number("gravity", "adaptive-band", \.motion.gravity.adaptiveBand, 0.01...2, unit: "g", "adaptive: ||a| - 1| at which it is fully slowed"),
            .number("gravity", "classic-factor", \.motion.gravity.classicFactor, 0.001...1, unit: "per sample", "classic: weight of the new sample"),

            .number("orientation", "dead-zone-degrees", \.motion.orientation.deadZoneDegrees, 0...60, unit: "degrees", "margin a neighbouring face must win by"),
            .number("orientation", "tilt-limit-degrees", \.motion.orientation.tiltLimitDegrees, 10...54, unit: "degrees", "largest angle from a face's axis to enter it"),
            .number("orientation", "magnitude-tolerance", \.motion.orientation.magnitudeTolerance, 0.01...2, unit: "g", "no decision while ||a| - 1| exceeds it"),
            .number("orientation", "settle-seconds", \.motion.orientation.settleSeconds, 0...10, unit: "s", "how long a new face must hold"),

            .number("shake", "threshold", \.motion.shake.threshold, 0.05...20, unit: "g", "|user acceleration| that makes a sample active"),
            .number("shake", "window-seconds", \.motion.shake.windowSeconds, 0.05...10, unit: "s", "sliding window length"),
            .number("shake", "fraction", \.motion.shake.fraction, 0.01...1, unit: "of the window", "active fraction that starts a shake"),
            .integer("shake", "minimum-reversals", \.motion.shake.minimumReversals, within: 0...100, "direction reversals needed"),
            .number("shake", "minimum-span-seconds", \.motion.shake.minimumSpanSeconds, 0...10, unit: "s", "first to last active sample"),
            .number("shake", "rearm-fraction", \.motion.shake.rearmFraction, 0...1, unit: "of the window", "active fraction that ends it"),
            .number("shake", "minimum-interval-seconds", \.motion.shake.minimumIntervalSeconds, 0...60, unit: "s", "quiet time between shakes"),

            .number("freefall", "threshold", \.motion.freeFall.threshold, 0.01...1, unit: "g", "|a| below it is falling"),
            .number("freefall", "minimum-seconds", \.motion.freeFall.minimumSeconds, 0.005...10, unit: "s", "low this long: the early warning (phase start)"),
            .number("freefall", "exit-threshold", \.motion.freeFall.exitThreshold, 0.01...5, unit: "g", "|a| that ends a fall"),
            .number("freefall", "rearm-seconds", \.motion.freeFall.rearmSeconds, 0...10, unit: "s", "calm time before the next fall"),

            .number("movement", "start-threshold", \.motion.movement.startThreshold, 0.01...20, unit: "g", "|user acceleration| that starts a movement"),
            .number("movement", "decision-seconds", \.motion.movement.decisionSeconds, 0...2, unit: "s", "how long the push is summed for the direction"),
            .number("movement", "lull-threshold", \.motion.movement.lullThreshold, 0.001...20, unit: "g", "below it the board is calm"),
            .number("movement", "lull-seconds", \.motion.movement.lullSeconds, 0.01...10, unit: "s", "calm time that ends a movement"),
            .text("socket", "path", \.socket.path, "where clients connect"),
            ConfigKey(section: "socket", name: "mode", help: "file mode of the socket, octal", set: { config, text in
                guard let mode = UInt32(text, radix: 8), mode <= 0o777 else { return "'\(text)' is not an octal file mode such as 0660" }
                config.socket.mode = mode
                return nil
            }, get: { "0" + String($0.socket.mode, radix: 8) }),
            .text("socket", "group", \.socket.group, "group of the socket"),
            .integer("socket", "max-clients", \.socket.maxClients, within: 1...10_000, "clients at once"),
            .integer("socket", "max-line-bytes", \.socket.maxLineBytes, within: 64...1_048_576, "longest request line"),
            .integer("socket", "client-buffer-bytes", \.socket.clientBufferBytes, within: 4096...67_108_864, "bytes queued per client before dropping"),
            .number("socket", "client-stuck-seconds", \.socket.clientStuckSeconds, 0.1...3600, unit: "s", "a client stuck this long is disconnected"),
            .text("daemon", "privileged-group", \.daemon.privilegedGroup, "group allowed to configure"),
            .text("daemon", "calibration-file", \.daemon.calibrationFile, "where the calibration is kept"),
            .flag("daemon", "power-down-on-exit", \.daemon.powerDownOnExit, "power the chip down on exit"),
            .flag("daemon", "wait-for-device", \.daemon.waitForDevice, "wait for a missing device at start"),
            .integer("daemon", "realtime-priority", \.daemon.realtimePriority, within: 0...99, "SCHED_FIFO priority of the sampler; 0: off"),
            .flag("power", "wake-on-motion", \.power.wakeOnMotion, "let the chip watch for motion while the board is still and no client watches frames"),
            .number("power", "still-seconds", \.power.stillSeconds, 1...86_400, unit: "s", "how long the board must be still first"),
            .number("power", "wake-threshold", \.power.wakeThreshold, 0.02...4, unit: "g", "motion that wakes it, gravity filtered out"),
            .number("movement", "maximum-seconds", \.motion.movement.maximumSeconds, 0.05...60, unit: "s", "longer movements are handling, not reported"),

            // Issue #14: shake begins and ends, free fall confirmed or withdrawn, taps.
            .number("shake", "end-seconds", \.motion.shake.endSeconds, 0...10, unit: "s", "no active sample this long ends a shake"),
            .number("freefall", "confirm-seconds", \.motion.freeFall.confirmSeconds, 0.005...10, unit: "s", "a fall this long is confirmed"),
            .number("freefall", "confirm-magnitude", \.motion.freeFall.confirmMagnitude, 0.01...1, unit: "g", "largest mean |a| of a fall"),
            .number("gravity", "baseline-motion-cutoff-hz", \.motion.gravity.baselineMotionCutoffHz, 0.001...50, unit: "Hz", "the detectors' baseline: cut-off while accelerated"),
            .number("gravity", "baseline-adaptive-band", \.motion.gravity.baselineAdaptiveBand, 0.01...2, unit: "g", "the detectors' baseline: ||a| - 1| at which it is fully slowed"),
            .number("orientation", "agreement-degrees", \.motion.orientation.agreementDegrees, 1...180, unit: "degrees", "no decision while the sample points farther than this from gravity"),
            .number("movement", "minimum-push-seconds", \.motion.movement.minimumPushSeconds, 0...2, unit: "s", "shortest push (above the start threshold) reported"),
            .number("tap", "threshold", \.motion.tap.threshold, 0.05...20, unit: "g", "|user acceleration| of a tap's spike"),
            .number("tap", "maximum-seconds", \.motion.tap.maximumSeconds, 0.001...1, unit: "s", "longest spike that is a tap"),
            .number("tap", "quiet-level", \.motion.tap.quietLevel, 0.001...20, unit: "g", "below it the board is still"),
            .number("tap", "quiet-seconds", \.motion.tap.quietSeconds, 0...10, unit: "s", "stillness before a tap"),
            .number("tap", "latency-seconds", \.motion.tap.latencySeconds, 0...2, unit: "s", "ringing after a tap, ignored"),
            .number("tap", "settle-seconds", \.motion.tap.settleSeconds, 0...2, unit: "s", "stillness after the ringing before a double tap counts"),
            .number("tap", "double-tap-seconds", \.motion.tap.doubleTapSeconds, 0.01...5, unit: "s", "a second tap must begin within this"),

            // Issue #28: the gyroscope's fusion (AttitudeFusion).
            .number("fusion", "gain", \.motion.fusion.gain, 0...50, unit: "1/s", "the accelerometer's pull while the board turns"),
            .number("fusion", "rest-gain", \.motion.fusion.restGain, 0...50, unit: "1/s", "the accelerometer's pull while it barely turns"),
            .number("fusion", "rest-rate", \.motion.fusion.restRate, 0.001...50, unit: "rad/s", "rate at which the pull has fallen to gain"),
            .number("fusion", "acceleration-band", \.motion.fusion.accelerationBand, 0.001...2, unit: "g", "||a| - 1| at which the accelerometer is ignored"),
            .number("fusion", "rejection-hold-seconds", \.motion.fusion.rejectionHoldSeconds, 0...10, unit: "s", "ignored this long after that"),
            .number("fusion", "bias-gain", \.motion.fusion.biasGain, 0...10, unit: "1/s^2", "Mahony's integral gain: bias learned in motion"),
            .number("fusion", "still-rate", \.motion.fusion.stillRate, 0.0001...1, unit: "rad/s", "still: each rate this close to its recent mean"),
            .number("fusion", "still-acceleration", \.motion.fusion.stillAcceleration, 0.0001...1, unit: "g", "still: the acceleration this close to its recent mean"),
            .number("fusion", "still-seconds", \.motion.fusion.stillSeconds, 0...60, unit: "s", "still this long before the bias follows the gyroscope"),
            .number("fusion", "bias-time-constant", \.motion.fusion.biasTimeConstant, 0.01...600, unit: "s", "how fast the bias follows it"),
            .number("fusion", "recovery-gain", \.motion.fusion.recoveryGain, 0...100, unit: "1/s", "the pull while recovering from saturation"),
            .number("fusion", "recovery-seconds", \.motion.fusion.recoverySeconds, 0...60, unit: "s", "calm this long ends the recovery"),

            // Issue #16: acceld-gateway's network faces (acceld never reads them).
            .flag("gateway", "http", \.gateway.http, "serve the live page, its WebSocket streams and /metrics"),
            ConfigKey(section: "gateway", name: "listen", help: "host:port HTTP listens on", set: { config, text in
                guard GatewaySettings.endpoint(text) != nil else { return "'\(text)' is not host:port, such as 127.0.0.1:8080 or [::1]:8080" }
                config.gateway.listen = text
                return nil
            }, get: { $0.gateway.listen }),
            ConfigKey(section: "gateway", name: "server-names", help: "names besides loopback that Host may carry", set: { config, text in
                let names = text.split(separator: ",").map { $0.trimmingWhitespace().lowercased() }.filter { !$0.isEmpty && $0 != "\"\"" }
                if let bad = names.first(where: { $0.contains(where: { " /:@".contains($0) }) }) {
                    return "'\(bad)' is not a host name (no port, no scheme): write board.local, 192.168.1.20"
                }
                config.gateway.serverNames = names
                return nil
            }, get: { $0.gateway.serverNames.isEmpty ? "\"\"" : $0.gateway.serverNames.joined(separator: ", ") }),
            .text("gateway", "web-root", \.gateway.webRoot, "the live page's files"),
            .flag("gateway", "metrics", \.gateway.metrics, "serve Prometheus metrics at /metrics"),
            .integer("gateway", "max-connections", \.gateway.maxConnections, within: 1...100_000, "HTTP and WebSocket connections at once"),
            .flag("gateway", "mqtt", \.gateway.mqtt.enabled, "publish events to an MQTT broker"),
            ConfigKey(section: "gateway", name: "mqtt-broker", help: "host:port of the broker", set: { config, text in
                guard let endpoint = GatewaySettings.endpoint(text), endpoint.port > 0 else { return "'\(text)' is not host:port, such as broker.lan:1883" }
                config.gateway.mqtt.broker = text
                return nil
            }, get: { $0.gateway.mqtt.broker }),
            ConfigKey(section: "gateway", name: "mqtt-prefix", help: "first level of every topic", set: { config, text in
                guard !text.isEmpty, !text.contains(where: { "+#".contains($0) }), !text.hasPrefix("/"), !text.hasSuffix("/") else {
                    return "'\(text)' cannot start a topic: no + or #, no leading or trailing /"
                }
                config.gateway.mqtt.prefix = text
                return nil
            }, get: { $0.gateway.mqtt.prefix }),
            ConfigKey(section: "gateway", name: "mqtt-board", help: "this board's topic level", set: { config, text in
                let name = text == "\"\"" ? "" : text
                guard !name.contains(where: { "+#/".contains($0) }) else { return "'\(text)' cannot be one topic level: no +, # or /" }
                config.gateway.mqtt.board = name
                return nil
            }, get: { $0.gateway.mqtt.board.isEmpty ? "\"\"" : $0.gateway.mqtt.board }),
            .number("gateway", "mqtt-frames-hz", \.gateway.mqtt.framesHz, 0...1000, unit: "Hz", "frames published per second (0: none)"),
            .integer("gateway", "mqtt-queue", \.gateway.mqtt.queue, within: 1...1_000_000, "messages kept while the broker is away"),
            .text("gateway", "mqtt-username", \.gateway.mqtt.username, "user name at the broker"),
            .text("gateway", "mqtt-password-file", \.gateway.mqtt.passwordFile, "file holding the password"),
            .text("gateway", "mqtt-tls-ca-file", \.gateway.mqtt.tlsCAFile, "CA certificate(s) of the broker; empty: no TLS"),
            .text("gateway", "mqtt-tls-cert-file", \.gateway.mqtt.tlsCertFile, "TLS client certificate"),
            .text("gateway", "mqtt-tls-key-file", \.gateway.mqtt.tlsKeyFile, "TLS client key"),
        ]
    }

    /// Parses configuration text on top of the defaults. Format: INI-style
    /// `[section]` headers, `key = value` lines, comments from `#` or `;` at
    /// the start of a line or from ` #` after a value.
    public init(parsing text: String, source: String = "configuration") throws {
        self.init()
        let keys = Configuration.keys
        let sections = Set(keys.map(\.section))
        var section: String?
        var seen: [String: Int] = [:]
        var number = 0
        for rawLine in text.split(separator: "\n", omittingEmptySubsequences: false) {
            number += 1
            var line = rawLine.trimmingWhitespace()
            // Whole-line comments start with # or ;, trailing ones with " #"
            // (';' separates mount-matrix rows, so it never starts a trailing one).
            if line.first == "#" || line.first == ";" { continue }
            if let hash = line.indices.first(where: { line[$0] == "#" && $0 > line.startIndex && " \t".contains(line[line.index(before: $0)]) }) {
                line = line[..<hash].trimmingWhitespace()
            }
            if line.isEmpty { continue }
            func fail(_ message: String) -> ConfigurationError { ConfigurationError(source: source, line: number, message: message) }
            if line.first == "[" {
                guard line.last == "]" else { throw fail("a section header looks like [name]; found '\(line)'") }
                let name = String(line.dropFirst().dropLast()).trimmingWhitespace()
                guard sections.contains(name) else {
                    throw fail("unknown section [\(name)]" + suggestion(name, among: Array(sections)) + "; sections are " + sections.sorted().map { "[\($0)]" }.joined(separator: ", "))
                }
                section = name
                continue
            }
            guard let equals = line.firstIndex(of: "=") else { throw fail("expected 'key = value', found '\(line)'") }
            let name = String(line[..<equals]).trimmingWhitespace()
            let value = String(line[line.index(after: equals)...]).trimmingWhitespace()
            guard let section else { throw fail("'\(name)' comes before any [section]; put it under one of " + sections.sorted().map { "[\($0)]" }.joined(separator: ", ")) }
            guard let key = keys.first(where: { $0.section == section && $0.name == name }) else {
                let names = keys.filter { $0.section == section }.map(\.name)
                throw fail("unknown key '\(name)' in [\(section)]" + suggestion(name, among: names) + "; known keys: " + names.joined(separator: ", "))
            }
            if let first = seen[key.fullName] { throw fail("\(key.fullName) is set twice (first on line \(first))") }
            seen[key.fullName] = number
            guard !value.isEmpty else { throw fail("\(key.fullName) has no value (\(key.help))") }
            if let reason = key.set(&self, value) { throw fail("\(key.fullName): \(reason)") }
        }
        // Range, rate and mode against the named part's own table, at the
        // line that asked for what it lacks.
        if let profile = device.profile, let (culprit, reason) = device.problem(on: profile) {
            throw ConfigurationError(source: source, line: seen["[device] \(culprit)"] ?? seen["[device] part"] ?? 0,
                                     message: "[device] \(culprit): \(reason)")
        }
        if let reason = power.problem(with: device) {
            throw ConfigurationError(source: source, line: seen["[power] wake-on-motion"] ?? 0, message: "[power] \(reason)")
        }
    }

    /// Sections a client may change at run time with `configure`.
    static let tunableSections: Set<String> = ["gravity", "orientation", "shake", "freefall", "movement", "tap", "fusion"]

    /// Applies "section.key" = value pairs (the `configure` request's
    /// tunables); returns why one cannot be applied, or nil.
    public mutating func applyTunables(_ tunables: [String: String]) -> String? {
        let keys = Configuration.keys
        for (name, value) in tunables.sorted(by: { $0.key < $1.key }) {
            let parts = name.split(separator: ".", maxSplits: 1).map(String.init)
            guard parts.count == 2, let key = keys.first(where: { $0.section == parts[0] && $0.name == parts[1] }) else {
                let known = keys.filter { Configuration.tunableSections.contains($0.section) }.map { "\($0.section).\($0.name)" }
                return "unknown tunable \"\(name)\"" + suggestion(name, among: known) + "; tunables are named section.key as in the configuration file, e.g. shake.threshold"
            }
            guard Configuration.tunableSections.contains(key.section) else {
                return "\(name) cannot change at run time: edit the configuration file and restart acceld"
            }
            if let reason = key.set(&self, value) { return "\(name): \(reason)" }
        }
        return nil
    }

    /// Reads and parses a file.
    public init(contentsOf path: String) throws {
        guard let text = readTextFile(path) else {
            throw ConfigurationError(source: path, line: 0, message: "cannot read the configuration file (\(systemError())): check the path given to --config, or leave --config out for the defaults")
        }
        try self.init(parsing: text, source: path)
    }
}

/// "; did you mean 'threshold'?" when a close name exists.
func suggestion(_ name: String, among names: [String]) -> String {
    let scored = names.map { ($0, editDistance(name, $0)) }.min { $0.1 < $1.1 }
    guard let (best, distance) = scored, distance <= max(2, name.count / 3) else { return "" }
    return "; did you mean '\(best)'?"
}

func editDistance(_ a: String, _ b: String) -> Int {
    let a = Array(a), b = Array(b)
    var row = Array(0...b.count)
    for i in 1...max(a.count, 1) where !a.isEmpty {
        var previous = row[0]
        row[0] = i
        for j in 1...max(b.count, 1) where !b.isEmpty {
            let current = row[j]
            row[j] = min(row[j] + 1, row[j - 1] + 1, previous + (a[i - 1] == b[j - 1] ? 0 : 1))
            previous = current
        }
    }
    return a.isEmpty ? b.count : row[b.count]
}

extension StringProtocol {
    func trimmingWhitespace() -> String {
        let isSpace: (Character) -> Bool = { $0 == " " || $0 == "\t" || $0 == "\r" }
        return String(self.drop(while: isSpace).reversed().drop(while: isSpace).reversed())
    }
}
