// SPDX-License-Identifier: Apache-2.0
/// When to re-arm the sampler's DispatchSourceTimer. On Linux, re-arming a
/// timer wakes libdispatch's manager thread to reprogram its timerfd: done
/// after every read, that is one more context switch per sample (a quarter
/// of acceld's at 400 Hz, docs/PERFORMANCE.md). So the timer repeats at the
/// chip's fitted period, and is re-armed only when the read the sampler
/// wants next is off the repetition's grid: a probe, a nudge after an empty
/// read, a fit that moved. A fire a little late only delays a frame; a fire
/// early finds no sample, so the early side's tolerance is the smaller.
struct TimerCadence {
    /// Where the repetition puts the next fire, on the sampler's clock (ns).
    private(set) var next: UInt64?
    private(set) var interval: UInt64 = 0

    /// After a read that wants the next one `delay` after `now`: nil leaves
    /// the timer repeating, else the delay and interval to re-arm it with.
    mutating func rearm(now: UInt64, delay: UInt64, period: UInt64, early: UInt64, late: UInt64) -> (delay: UInt64, interval: UInt64)? {
        let wanted = now + delay
        if var expected = next, interval > 0 {
            // The next fire is the first on the grid more than half an
            // interval from now: the one that woke this read is at most
            // that far behind (a timer that fires a hair before our clock
            // says, or a slow read), and fires the handler missed (a
            // stall) are skipped, not queued. A wrong guess only re-arms.
            let horizon = now + interval / 2
            if expected <= horizon { expected += ((horizon - expected) / interval + 1) * interval }
            if expected + early >= wanted && expected <= wanted + late {
                next = expected
                return nil
            }
        }
        next = wanted
        interval = max(period, 1)
        return (delay, interval)
    }
}
