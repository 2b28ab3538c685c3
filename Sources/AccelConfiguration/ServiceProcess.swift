// SPDX-License-Identifier: Apache-2.0
import Dispatch
#if canImport(Glibc)
import Glibc
#endif

/// What the services beside acceld (acceld-gateway, acceld-ros2) share as
/// processes: where their configuration comes from, and how they stop.
public enum ServiceProcess {
    public static let defaultConfigurationPath = "/etc/acceld/acceld.conf"

    /// The file given, else the default one if readable, else the built-in
    /// defaults; with the path read (nil: the defaults).
    public static func configuration(_ given: String?) throws -> (configuration: Configuration, path: String?) {
        let path = given ?? (access(defaultConfigurationPath, R_OK) == 0 ? defaultConfigurationPath : nil)
        return (try path.map { try Configuration(contentsOf: $0) } ?? Configuration(), path)
    }

    /// SIGTERM and SIGINT reach the process only through `runUntilTerminated`.
    public static func blockTerminationSignals() {
        var set = sigset_t()
        sigemptyset(&set)
        sigaddset(&set, SIGTERM)
        sigaddset(&set, SIGINT)
        pthread_sigmask(SIG_BLOCK, &set, nil)
    }

    /// Runs the main queue until SIGTERM or SIGINT, then tells systemd
    /// (STOPPING=1), calls `stop` and exits 0.
    public static func runUntilTerminated(notifier: SystemdNotifier, stop: @escaping @Sendable () -> Void) -> Never {
        var sources: [DispatchSourceSignal] = []
        for number in [SIGTERM, SIGINT] {
            let source = DispatchSource.makeSignalSource(signal: number, queue: .main)
            source.setEventHandler {
                notifier.notify("STOPPING=1")
                stop()
                exit(0)
            }
            source.resume()
            sources.append(source)
        }
        withExtendedLifetime(sources) { dispatchMain() }
    }
}
