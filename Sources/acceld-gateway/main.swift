// SPDX-License-Identifier: Apache-2.0
import AccelConfiguration
import AccelGateway
import ArgumentParser
import Dispatch
#if canImport(FoundationEssentials)
import FoundationEssentials  // not all of Foundation: ICU's data would triple the static binary
#else
import Foundation
#endif
#if canImport(Glibc)
import Glibc
#endif
import Logging

/// acceld-gateway: the network faces of acceld (docs/GATEWAY.md).
struct GatewayCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "acceld-gateway",
        abstract: "Serve acceld on the network: the live page, WebSocket streams (acceld's and the browser's DeviceMotion), Prometheus metrics, MQTT.",
        // A paragraph on one line: ArgumentParser wraps it to the terminal.
        discussion: """
            A client of acceld's socket; acceld itself never touches the network. Every face is off until enabled in [gateway] of the configuration file or here.

            Examples:
              acceld-gateway --http --web-root Web --socket /tmp/acceld.sock
                  # the live page on http://127.0.0.1:8080
              acceld-gateway --config /etc/acceld/acceld.conf
                  # as the systemd unit runs it
              acceld-gateway --mqtt --mqtt-broker broker.lan:1883
                  # events to a broker, no HTTP
            """)

    @Option(help: "Configuration file (default: \(ServiceProcess.defaultConfigurationPath) if it exists, else built-in defaults).")
    var config: String?
    @Option(help: "acceld's socket (default: [socket] path).")
    var socket: String?
    @Flag(help: "Serve the live page and its WebSocket streams ([gateway] http).")
    var http = false
    @Flag(help: "Serve Prometheus metrics at /metrics ([gateway] metrics).")
    var metrics = false
    @Option(help: "host:port to listen on ([gateway] listen); port 0 picks a free one.")
    var listen: String?
    @Option(name: .customLong("server-name"), help: "A name besides loopback that Host may carry ([gateway] server-names); repeatable.")
    var serverNames: [String] = []
    @Option(help: "The live page's files ([gateway] web-root).")
    var webRoot: String?
    @Flag(help: "Publish events to an MQTT broker ([gateway] mqtt).")
    var mqtt = false
    @Option(help: "The broker, host:port ([gateway] mqtt-broker).")
    var mqttBroker: String?
    @Option(help: "This board's topic level ([gateway] mqtt-board).")
    var mqttBoard: String?
    @Option(help: "Frames per second to publish ([gateway] mqtt-frames-hz).")
    var mqttFramesHz: Double?
    @Option(help: "Messages kept while the broker is away ([gateway] mqtt-queue).")
    var mqttQueue: Int?
    @Flag(help: "Watch acceld's vibration and machine streams: gauges, MQTT with Home Assistant's discovery, the page's spectrum ([gateway] vibration).")
    var vibration = false
    @Flag(help: "Check the configuration and the page's files, print what would be served, and exit.")
    var checkConfig = false
    @Option(help: "Log level: trace, debug, info, notice, warning, error, critical.")
    var logLevel = "notice"

    func run() throws {
        guard let level = Logger.Level(rawValue: logLevel) else {
            fail("--log-level \(logLevel) is not one of trace, debug, info, notice, warning, error, critical", code: 64)
        }
        LoggingSystem.bootstrap { label in
            var handler = StreamLogHandler.standardError(label: label)
            handler.logLevel = level
            return handler
        }
        let (configuration, path): (Configuration, String?)
        do { (configuration, path) = try ServiceProcess.configuration(config) } catch { fail("\(error)", code: 78) }
        var settings = configuration.gateway
        if http { settings.http = true }
        if metrics { settings.metrics = true }
        if let listen {
            if let problem = GatewaySettings.endpointProblem(listen, example: "127.0.0.1:8080") { fail("--listen \(problem)", code: 64) }
            settings.listen = listen
        }
        settings.serverNames += serverNames.map { $0.lowercased() }
        if let webRoot {
            settings.webRoot = webRoot
        } else if settings.webRoot == GatewaySettings().webRoot, !FileManager.default.fileExists(atPath: settings.webRoot) {
            // make install under another PREFIX: the page sits beside bin/.
            let executable = URL(fileURLWithPath: "/proc/self/exe").resolvingSymlinksInPath().deletingLastPathComponent()
            let besides = executable.appendingPathComponent("../share/acceld/web").standardized.path
            if FileManager.default.fileExists(atPath: besides) { settings.webRoot = besides }
        }
        if mqtt { settings.mqtt.enabled = true }
        if let mqttBroker {
            if let problem = GatewaySettings.endpointProblem(mqttBroker, example: "broker.lan:1883") { fail("--mqtt-broker \(problem)", code: 64) }
            settings.mqtt.broker = mqttBroker
        }
        if let mqttBoard { settings.mqtt.board = mqttBoard }
        if let mqttFramesHz { settings.mqtt.framesHz = mqttFramesHz }
        if let mqttQueue { settings.mqtt.queue = mqttQueue }
        if vibration { settings.vibration = true }
        guard settings.http || settings.metrics || settings.mqtt.enabled else {
            fail("every face of acceld-gateway is off: set http, metrics or mqtt = true in [gateway] of \(path ?? ServiceProcess.defaultConfigurationPath), or pass --http", code: 78)
        }
        let assets: WebAssets
        do { assets = settings.http ? try WebAssets(directory: settings.webRoot) : .none } catch { fail("\(error)", code: 72) }
        let daemonSocket = socket ?? ProcessInfo.processInfo.environment["ACCELD_SOCKET"] ?? configuration.socket.path
        if checkConfig {
            // Credentials are named as set or not, never shown.
            let broker = settings.mqtt.enabled ? "on (\(settings.mqtt.broker)\(settings.mqtt.username.isEmpty ? "" : ", with a user name")\(settings.mqtt.passwordFile.isEmpty ? "" : " and password")\(settings.mqtt.tlsCAFile.isEmpty ? "" : ", TLS"))" : "off"
            print("configuration OK\(path.map { " (\($0))" } ?? " (built-in defaults)"): listen \(settings.listen), page \(settings.http ? "on" : "off") (\(assets.files.count) files in \(settings.webRoot)), metrics \(settings.metrics ? "on" : "off"), MQTT \(broker), vibration \(vibrationSummary(settings)), acceld at \(daemonSocket)")
            return
        }
        ServiceProcess.blockTerminationSignals()
        let gateway: Gateway
        do { gateway = try Gateway(settings: settings, daemonSocket: daemonSocket, assets: assets) } catch { fail(error.description, code: error.exitCode) }
        let environment = ProcessInfo.processInfo.environment
        let notifier = SystemdNotifier(environment: environment)
        let listening: String?
        do {
            listening = try gateway.start(descriptor: SocketActivation.listeningDescriptors(environment: environment).first)
        } catch let error as Gateway.StartError {
            fail(error.description, code: error.exitCode)
        }
        let faces = "page \(settings.http ? "on" : "off"), metrics \(settings.metrics ? "on" : "off"), MQTT \(settings.mqtt.enabled ? "to \(settings.mqtt.broker)" : "off"), vibration \(settings.vibration ? "on" : "off")"
        let summary = (listening.map { "serving on \($0)" } ?? "not listening") + " (\(faces)); acceld at \(daemonSocket)"
        Logger(label: "acceld-gateway").notice("\(summary)")
        notifier.notify("READY=1\nSTATUS=\(summary)")
        ServiceProcess.runUntilTerminated(notifier: notifier) { gateway.stop() }
    }

    private func vibrationSummary(_ settings: GatewaySettings) -> String {
        guard settings.vibration else { return "off" }
        let discovery = settings.mqtt.enabled && !settings.mqtt.discoveryPrefix.isEmpty
        return "on (\(settings.vibrationBins) bins" + (discovery ? ", Home Assistant discovery under \(settings.mqtt.discoveryPrefix))" : ")")
    }

    private func fail(_ message: String, code: Int32) -> Never {
        var line = "acceld-gateway: \(message)\n"
        line.withUTF8 { bytes in _ = write(2, bytes.baseAddress, bytes.count) }
        Glibc.exit(code)
    }
}

GatewayCommand.main()
