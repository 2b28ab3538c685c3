// SPDX-License-Identifier: Apache-2.0
import AccelConfiguration
import AccelDaemon
import AccelDriver
import AccelParts
import Foundation

/// acceld in the test's own process, on a real socket and the real clock:
/// the daemon's own `start()` (the chip model, the sampler, the hub, the
/// listener) without the process around it: no spawn, no signals, no exit.
/// For the clients and accelctl, which need a socket to talk to. What the
/// daemon does as a process (signals, sd_notify, socket activation,
/// privileges on a socket file, exit codes) `DaemonProcess` tests.
public final class SocketDaemon {
    public let directory: String
    public let socketPath: String
    private let daemon: Daemon
    private var running = true

    /// As `acceld --simulate MOTION [--part P] [--rate R] [--range G]
    /// [--interrupt model] [--fault F]... [--loop]`.
    public init(simulate motion: String, part: String = ChipProfile.lis302dl.name, rate: Int? = nil, range: Int? = nil,
                interrupt: String? = nil, faults: [String] = [], loop: Bool = false, socketPath: String? = nil) throws {
        QuietDaemonLogs.install()
        directory = scratchDirectory()
        self.socketPath = socketPath ?? directory + "/acceld.sock"
        var configuration = Configuration()
        configuration.socket.path = self.socketPath
        configuration.daemon.calibrationFile = directory + "/calibration.json"
        configuration.device.part = part
        configuration.device.rate = rate
        configuration.device.range = range
        configuration.device.interrupt = interrupt
        var options = Daemon.Options(configuration: configuration, configurationPath: nil, source: .simulated(motion: motion))
        options.faults = try faults.map(Fault.init(parsing:))
        options.loop = loop
        daemon = Daemon(options: options, environment: [:])
        do { try daemon.start() } catch {
            running = false  // nothing to stop
            throw error
        }
    }

    /// SIGTERM's shutdown, as the daemon runs it: goodbye to every client, the socket file removed.
    public func stop() {
        guard running else { return }
        running = false
        daemon.stop()
    }

    deinit {
        stop()
        try? FileManager.default.removeItem(atPath: directory)
    }
}
