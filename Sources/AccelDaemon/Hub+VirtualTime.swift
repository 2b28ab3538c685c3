// SPDX-License-Identifier: Apache-2.0

/// Driving the daemon's queues by hand on a virtual clock, as `acceld
/// replay` (ReplayRun) and the in-process tests do: from outside every
/// queue of the daemon's, each call waits for what it handed on.
extension Hub {
    /// The once-a-second ticks due by `now`; `next` is the next one's instant.
    func tick(upTo now: UInt64, next: inout UInt64) {
        guard now >= next else { return }
        control.sync {
            while now >= next {
                tick()
                next += 1_000_000_000
            }
        }
    }

    /// Whatever the control side was handed, done: each request's message
    /// to the sampler's queue and its reply back (a hop each way; a watch
    /// makes one more for the latency and the frames watched).
    func settle() {
        for _ in 0..<3 {
            control.sync {}
            sampler.queue.sync {}
        }
        control.sync {}
    }
}
