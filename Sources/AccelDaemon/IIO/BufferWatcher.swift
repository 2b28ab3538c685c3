// SPDX-License-Identifier: Apache-2.0
import Dispatch
import Glibc
import Synchronization

/// Waits for an IIO buffer's scans with poll() on a queue of its own, and
/// has `target` read them. Not a dispatch read source: libdispatch on Linux
/// can crash in its epoll bookkeeping when a watched descriptor hangs up
/// while its source is cancelled (swift-corelibs-libdispatch issue 949),
/// and a hang-up is exactly what an unplugged device gives (the tests'
/// crashed one run in six). The watcher closes the descriptor once its
/// loop has ended, never under a poll().
final class BufferWatcher: Sendable {
    private let stopped = Atomic<Bool>(false)

    /// `readable` runs on `target` whenever the descriptor has something
    /// (scans, end of file or an error), until `stop`.
    init(descriptor: Int32, target: DispatchQueue, readable: @escaping @Sendable () -> Void) {
        DispatchQueue(label: "acceld.iio.watch").async { [self] in
            var fds = [pollfd(fd: descriptor, events: Int16(POLLIN), revents: 0)]
            while !stopped.load(ordering: .acquiring) {
                // A tenth of a second bounds how long a stop waits for the loop.
                guard poll(&fds, 1, 100) > 0, fds[0].revents != 0 else { continue }
                target.sync { if !stopped.load(ordering: .acquiring) { readable() } }
                // A hang-up stays set until the reader gives up: do not spin meanwhile.
                if fds[0].revents & Int16(POLLHUP | POLLERR | POLLNVAL) != 0 { usleep(10_000) }
            }
            close(descriptor)
        }
    }

    /// The loop ends within a tenth of a second; `readable` is not called again.
    func stop() { stopped.store(true, ordering: .releasing) }
}
