// SPDX-License-Identifier: Apache-2.0
import AccelClient
import AccelConfiguration
import AccelROS2Bridge
import ArgumentParser
#if canImport(FoundationEssentials)
import FoundationEssentials  // not all of Foundation: ICU's data would triple the static binary
#else
import Foundation
#endif
import Glibc

/// acceld-ros2: acceld's samples on ROS 2's topics through Cyclone DDS (docs/ROS2.md).
struct ROS2Command: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "acceld-ros2",
        abstract: "Publish acceld's samples as ROS 2's sensor_msgs/Imu and diagnostics, through Cyclone DDS, with no ROS installation.",
        discussion: """
            A client of acceld's socket, as acceld-gateway is. It publishes imu/data_raw (and imu/data with the fused attitude on a part with a gyroscope) and /diagnostics in the DDS domain ROS_DOMAIN_ID names, where ROS 2 nodes on rmw_cyclonedds_cpp (and other RMWs on the same wire) subscribe. Topics, namespace, frame id and QoS are in [ros2] of the configuration file. Cyclone DDS reads its own configuration from CYCLONEDDS_URI (docs/ROS2.md).

            Examples:
              acceld-ros2                                   # as the unit runs it
              acceld-ros2 --socket /tmp/acceld.sock         # acceld --simulate's
              ros2 topic echo /imu/data_raw                 # on a machine with ROS 2
            """)

    @Option(help: "Configuration file (default: \(ServiceProcess.defaultConfigurationPath) if it exists, else built-in defaults).")
    var config: String?

    @Option(help: "acceld's socket (default: $ACCELD_SOCKET, else [socket] path).")
    var socket: String?

    @Flag(help: "Check the configuration, print what would be published, and exit.")
    var checkConfig = false

    func run() throws {
        let (configuration, path): (Configuration, String?)
        do { (configuration, path) = try ServiceProcess.configuration(config) } catch { fail("\(error)", code: 78) }
        let settings = configuration.ros2
        let environment = ProcessInfo.processInfo.environment
        let domain: Int
        do { domain = try settings.domain(environment: environment) } catch { fail(error.description, code: 78) }
        let daemonSocket = socket ?? environment["ACCELD_SOCKET"] ?? configuration.socket.path
        let topics = [settings.rawTopic, settings.fusedTopic, settings.diagnosticsTopic].map(settings.qualified)
        let summary = "domain \(domain), \(topics.joined(separator: ", ")) (\(settings.reliability.rawValue), keep last \(settings.depth)), frame \(settings.frameID); acceld at \(daemonSocket)"
        if checkConfig {
            print("configuration OK\(path.map { " (\($0))" } ?? " (built-in defaults)"): \(summary)")
            return
        }
        ServiceProcess.blockTerminationSignals()
        let bridge: ROS2Bridge
        do {
            bridge = try ROS2Bridge(settings: settings, domain: domain, socketPath: daemonSocket, log: log)
        } catch {
            fail("\(error.description) (is CYCLONEDDS_URI valid? docs/ROS2.md)", code: 69)
        }
        bridge.start()
        log("publishing: \(summary)")
        let notifier = SystemdNotifier(environment: environment)
        notifier.notify("READY=1\nSTATUS=\(summary)")
        ServiceProcess.runUntilTerminated(notifier: notifier) { bridge.stop() }
    }

    private func fail(_ message: String, code: Int32) -> Never {
        log(message)
        Glibc.exit(code)
    }
}

/// A line on standard error, which journald keeps.
@Sendable func log(_ message: String) {
    var line = "acceld-ros2: \(message)\n"
    line.withUTF8 { bytes in _ = write(2, bytes.baseAddress, bytes.count) }
}

ROS2Command.main()
