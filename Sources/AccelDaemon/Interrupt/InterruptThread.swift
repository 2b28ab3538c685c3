// SPDX-License-Identifier: Apache-2.0
#if canImport(Glibc)
import Glibc
#endif
import AccelDriver
import Dispatch
import Synchronization

/// The interrupt path's shell: a thread acceld owns, at SCHED_FIFO where
/// allowed, blocked on the INT line until edges come. No libdispatch hop
/// lies between the kernel's wake-up and the read: the step runs on this
/// thread, inside `queue.sync` (which runs a block on the calling thread),
/// so it still takes turns with the requests that come through the queue.
/// (Unchecked: its one changing value, `stopping`, is atomic.)
final class InterruptThread: @unchecked Sendable {
    /// What a step wants next: the line to wait on (nil: none, sleep) and
    /// how long at most.
    struct Next {
        let line: InterruptLine?
        let wait: UInt64
    }

    /// What the line said: edges (none on a timeout or a wake), or an error.
    typealias Step = (Result<[Edge], Error>) -> Next

    private let queue: DispatchQueue
    private let step: Step
    private let stopping = Atomic<Bool>(false)
    private let realtimePriority: Int

    init(queue: DispatchQueue, realtimePriority: Int, step: @escaping Step) {
        self.queue = queue
        self.realtimePriority = realtimePriority
        self.step = step
    }

    /// Starts the thread, which first waits as `first` says.
    func start(_ first: Next) {
        let context = Unmanaged.passRetained(Box((self, first)))
        var thread = pthread_t()
        let created = pthread_create(&thread, nil, { raw in
            let (shell, first) = Unmanaged<Box<(InterruptThread, Next)>>.fromOpaque(raw!).takeRetainedValue().value
            shell.run(first)
            return nil
        }, context.toOpaque())
        precondition(created == 0, "pthread_create: \(created)")
        pthread_detach(thread)
    }

    /// Ends the loop after the step under way (call on the queue, or from
    /// the step itself); `line`'s wait is cut short.
    func stop(waking line: InterruptLine?) {
        stopping.store(true, ordering: .releasing)
        line?.wake()
    }

    private func run(_ first: Next) {
        var realtime = RealtimeThread(priority: realtimePriority)
        realtime.enter()
        defer { realtime.leave() }
        var next = first
        while !stopping.load(ordering: .acquiring) {
            let result: Result<[Edge], Error>
            if let line = next.line {
                result = Result { try line.wait(nanoseconds: next.wait) }
            } else {
                var pause = timespec(tv_sec: Int(next.wait / 1_000_000_000), tv_nsec: Int(next.wait % 1_000_000_000))
                var left = timespec()
                while nanosleep(&pause, &left) != 0 && errno == EINTR { pause = left }
                result = .success([])
            }
            // Checked again inside the queue: a stop that ran while this
            // thread waited for it has powered the chip down; no read after it.
            let stepped: Next? = queue.sync { stopping.load(ordering: .acquiring) ? nil : step(result) }
            guard let stepped else { break }
            next = stepped
        }
    }
}

private final class Box<Value> {
    let value: Value
    init(_ value: Value) { self.value = value }
}
