// SPDX-License-Identifier: Apache-2.0
import AccelCore
import AccelParts
import AccelMotion

extension Configuration {
    /// The table of keys. Adding a tunable is adding a line here, to
    /// Config/acceld.conf and to docs/CONFIG.md.
    static var keys: [ConfigKey] { tableKeys + vibrationKeys + ros2Keys }

    // One literal of its own: with `+ vibrationKeys` after it, Debian's
    // Swift 6.2.3 (the arm64 build) gave up type-checking the expression.
    private static var tableKeys: [ConfigKey] {
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
                if let problem = GatewaySettings.endpointProblem(text, example: "127.0.0.1:8080 or [::1]:8080") { return problem }
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
            .flag("gateway", "vibration", \.gateway.vibration, "watch acceld's vibration and machine streams (protocol 3): gauges, MQTT, the page's spectrum"),
            .integer("gateway", "vibration-bins", \.gateway.vibrationBins, within: 16...4096, "spectrum bins asked of acceld for the page's spectrum and waterfall"),
            ConfigKey(section: "gateway", name: "mqtt-discovery-prefix", help: "Home Assistant's discovery prefix; \"\" for no discovery", set: { config, text in
                let prefix = text == "\"\"" ? "" : text
                guard !prefix.contains(where: { "+#".contains($0) }), !prefix.hasPrefix("/"), !prefix.hasSuffix("/") else {
                    return "'\(text)' is not a topic prefix: no + or #, no leading or trailing / (Home Assistant's default is homeassistant)"
                }
                config.gateway.mqtt.discoveryPrefix = prefix
                return nil
            }, get: { $0.gateway.mqtt.discoveryPrefix.isEmpty ? "\"\"" : $0.gateway.mqtt.discoveryPrefix }),
            .number("gateway", "mqtt-vibration-seconds", \.gateway.mqtt.vibrationSeconds, 0...3600, unit: "s", "vibration windows published at most this often (0: every one)"),
        ]
    }
}
