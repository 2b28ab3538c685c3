// SPDX-License-Identifier: Apache-2.0
#if canImport(Glibc)
import Glibc
#endif
import Dispatch

extension Daemon {
    /// SIGTERM/SIGINT: stop accepting and reading requests, stop sampling
    /// and power the chip down, say goodbye, remove our socket file, exit 0.
    /// Each step waits for the one before, so no work is queued after it.
    func shutdown() {
        logger.info("stopping")
        notifier.notify("STOPPING=1")
        stop()
        exit(0)
    }

    /// The shutdown's steps, without the exit.
    public func stop() {
        let hub = self.hub!, listener = self.listener, timers = self.timers
        hub.shutDown(powerDown: options.configuration.daemon.powerDownOnExit) {
            listener?.stop()
            for timer in timers { timer.cancel() }
        }
        if let path = ownedSocketPath { unlink(path) }
        // The sampler's output holds the hub, which holds the sampler: both
        // go once nothing runs (a test's daemon in process; a process exits).
        let sampler = self.sampler!
        sampler.queue.sync { sampler.output = { _ in } }
    }
}
