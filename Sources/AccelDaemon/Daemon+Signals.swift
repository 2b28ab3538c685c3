// SPDX-License-Identifier: Apache-2.0
#if canImport(Glibc)
import Glibc
#endif
import Dispatch

// The signals acceld handles, and how they reach it: SIGTERM and SIGINT
// stop it (Daemon+Shutdown.swift), SIGHUP reloads (Daemon+Reload.swift).
extension Daemon {
    static let handledSignals = [SIGTERM, SIGINT, SIGHUP]

    /// SIGTERM, SIGINT and SIGHUP reach the daemon only through its dispatch
    /// signal sources (a signalfd): blocked in every thread, they stay
    /// pending until read there. Left unblocked in some thread, an ignored
    /// signal would simply be discarded by the kernel.
    static func blockHandledSignals() {
        var set = sigset_t()
        sigemptyset(&set)
        for number in handledSignals { sigaddset(&set, number) }
        pthread_sigmask(SIG_BLOCK, &set, nil)
    }

    func installSignalHandlers() {
        for (number, action) in zip(Daemon.handledSignals, [shutdown, shutdown, reload]) {
            // No SIG_IGN here: setting it discards a signal already pending,
            // and the signals are blocked in every thread anyway.
            let source = DispatchSource.makeSignalSource(signal: number, queue: .main)
            source.setEventHandler(handler: action)
            source.resume()
            signalSources.append(source)
        }
    }
}
