// SPDX-License-Identifier: Apache-2.0
#if canImport(Glibc)
import Glibc
#endif
import Logging

/// Keeps the thread that runs the sampler's step at SCHED_FIFO, so that a
/// busy neighbour cannot make it miss a sample's slot. libdispatch runs a
/// queue on whichever pool thread is free, so the check is made at every
/// step: `pthread_self` costs no system call, and only when the step moved
/// to another thread is that one raised and the previous one put back to
/// SCHED_OTHER (by its kernel thread id: a thread that has exited since is
/// an ESRCH, never a crash).
///
/// Refused (no RLIMIT_RTPRIO, no CAP_SYS_NICE, a seccomp filter), it says
/// so once and the sampler goes on at normal priority.
struct RealtimeThread {
    /// SCHED_FIFO priority, 1 to 99; 0: leave the scheduling alone.
    let priority: Int32
    private var current: (thread: pthread_t, id: pid_t)?
    private var refused = false
    private let logger = Logger(label: "acceld.sampler")

    init(priority: Int) {
        self.priority = Int32(priority)
    }

    /// Call at the start of each step, on the sampler's thread.
    mutating func enter() {
        guard priority > 0, !refused else { return }
        let thread = pthread_self()
        if let current, pthread_equal(current.thread, thread) != 0 { return }
        let id = gettid()
        var parameters = sched_param()
        parameters.sched_priority = priority
        guard sched_setscheduler(id, SCHED_FIFO, &parameters) == 0 else {
            refused = true
            let reason = String(cString: strerror(errno))
            logger.notice("the sampler runs at normal priority: SCHED_FIFO \(priority) was refused (\(reason)); grant it with LimitRTPRIO=\(priority) (systemd) or ulimit -r, or set [daemon] realtime-priority = 0")
            return
        }
        if let previous = current?.id {
            var normal = sched_param()
            _ = sched_setscheduler(previous, SCHED_OTHER, &normal)
        }
        current = (thread, id)
    }

    /// Puts the thread that ran the sampler back to normal scheduling.
    mutating func leave() {
        guard let id = current?.id else { return }
        var normal = sched_param()
        _ = sched_setscheduler(id, SCHED_OTHER, &normal)
        current = nil
    }
}

/// gettid(2), from glibc 2.30 on; Glibc's module imports neither it nor
/// SYS_gettid (and syscall is variadic), so it is looked up once.
private let gettid: @convention(c) () -> pid_t = {
    guard let symbol = dlsym(UnsafeMutableRawPointer(bitPattern: 0), "gettid") else {
        return { -1 }  // older glibc: an id no thread has, so the request is refused, and said
    }
    return unsafeBitCast(symbol, to: (@convention(c) () -> pid_t).self)
}()
