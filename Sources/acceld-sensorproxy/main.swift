// SPDX-License-Identifier: Apache-2.0
import AccelClient
import ArgumentParser
import Glibc

/// acceld-sensorproxy: iio-sensor-proxy's D-Bus interface on acceld's
/// orientation (docs/SENSORPROXY.md).
struct SensorProxyCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "acceld-sensorproxy",
        abstract: "Own net.hadess.SensorProxy on the system bus and serve acceld's orientation to the desktop's auto-rotation.",
        // Each paragraph on one line: ArgumentParser wraps it to the
        // terminal, and breaks the lines of an example only when they fit.
        discussion: """
            A client of acceld's socket, as acceld-gateway is, that speaks iio-sensor-proxy's D-Bus interface: GNOME, KDE, Phosh and Qt rotate the screen from acceld's orientation events. It replaces iio-sensor-proxy, which must not run beside it. The bus is the system bus, or the one DBUS_SYSTEM_BUS_ADDRESS names.

            Examples:
              acceld-sensorproxy                            # as the unit runs it
              acceld-sensorproxy --socket /tmp/acceld.sock  # acceld --simulate's
              monitor-sensor                                # what the desktop sees
            """)

    @Option(help: "acceld's socket (default: $ACCELD_SOCKET, else /run/acceld/acceld.sock).")
    var socket: String?

    func run() throws {
        // The bus loop takes these through a signalfd.
        var signals = sigset_t()
        sigemptyset(&signals)
        sigaddset(&signals, SIGTERM)
        sigaddset(&signals, SIGINT)
        pthread_sigmask(SIG_BLOCK, &signals, nil)
        let path = socket ?? DaemonConnection.defaultSocket
        do {
            let mailbox = try Mailbox()
            let link = AcceldLink(socketPath: path, mailbox: mailbox)
            let bus = SensorProxyBus(link: link, mailbox: mailbox)
            try bus.open()
            log("owns \(SensorProxyBus.name) on the system bus; acceld at \(path)")
            link.start()
            try bus.run()
            log("stopped")
        } catch {
            log(error.message)
            Glibc.exit(error.code)
        }
    }
}

SensorProxyCommand.main()
