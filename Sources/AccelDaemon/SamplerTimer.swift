// SPDX-License-Identifier: Apache-2.0
import AccelCore
import Dispatch

/// The sampler's timer shell: a DispatchSourceTimer on the sampler's queue
/// that runs a step, then re-arms only when the read the step wants next
/// is off the timer's repeating grid (TimerCadence), and keeps the thread
/// that runs the steps at SCHED_FIFO where allowed (RealtimeThread).
/// Confined to the queue it is given.
final class SamplerTimer {
    /// What a step wants next: the instant of the next read (on `time`),
    /// the grid's interval, and how far a fire on the grid may be early or
    /// late and still count as that read (ns).
    struct Next {
        let at: UInt64
        let interval: UInt64
        let early: UInt64
        let late: UInt64
    }

    private let queue: DispatchQueue
    private let time: TimeSource
    private var timer: DispatchSourceTimer?
    private var cadence = TimerCadence()
    private var realtime: RealtimeThread

    init(queue: DispatchQueue, time: TimeSource, realtimePriority: Int) {
        self.queue = queue
        self.time = time
        realtime = RealtimeThread(priority: realtimePriority)
    }

    var isRunning: Bool { timer != nil }

    /// Fires at once, then as each step asks.
    func start(_ step: @escaping () -> Next) {
        let timer = DispatchSource.makeTimerSource(flags: .strict, queue: queue)
        cadence = TimerCadence()
        timer.setEventHandler { [unowned self] in
            guard let timer = self.timer else { return }
            realtime.enter()
            let next = step()
            let now = time.nanoseconds
            guard let arm = cadence.rearm(now: now, delay: next.at > now ? next.at - now : 0, period: next.interval,
                                          early: next.early, late: next.late) else { return }
            timer.schedule(deadline: .now() + .nanoseconds(Int(arm.delay)), repeating: .nanoseconds(Int(arm.interval)),
                           leeway: .microseconds(50))
        }
        self.timer = timer
        timer.schedule(deadline: .now(), leeway: .microseconds(50))
        timer.resume()
    }

    /// No step runs after this returns (call on the queue).
    func stop() {
        timer?.cancel()
        timer = nil
        realtime.leave()
    }
}
