// SPDX-License-Identifier: Apache-2.0
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Maps acceld's instants (CLOCK_MONOTONIC) onto the system clock that ROS
/// time uses (CLOCK_REALTIME), as rosbag2 and every ROS 2 node stamp.
///
/// The offset between the two is measured by reading CLOCK_REALTIME
/// between two readings of CLOCK_MONOTONIC, keeping the tightest of a few
/// tries (the measurement's error is under half that bracket). It is then
/// followed as ntpd follows a clock: a difference under `stepLimit` is
/// slewed in at most `maximumSlew` (500 ppm, the kernel's own limit for
/// adjtime), so consecutive stamps never jump or run backwards; a larger
/// one (the clock was set) is taken at once.
public struct ClockMapping: Sendable {
    public static let maximumSlew = 500e-6
    public static let stepLimit: Int64 = 128_000_000  // ntpd's step threshold, 128 ms

    /// CLOCK_REALTIME − CLOCK_MONOTONIC as followed, nanoseconds.
    public private(set) var offset: Int64
    private var followedAt: Int64

    public init(offset: Int64, atMonotonic: Int64) {
        self.offset = offset
        followedAt = atMonotonic
    }

    /// Measured now.
    public init() {
        let measured = ClockMapping.measure()
        self.init(offset: measured.offset, atMonotonic: measured.monotonic)
    }

    /// Moves toward `measured` (taken at monotonic instant `at`), as the
    /// type's comment says.
    public mutating func follow(measured: Int64, at monotonic: Int64) {
        let difference = measured - offset
        if abs(difference) > ClockMapping.stepLimit {
            offset = measured
        } else {
            let allowed = Int64(Double(max(0, monotonic - followedAt)) * ClockMapping.maximumSlew)
            offset += min(max(difference, -allowed), allowed)
        }
        followedAt = max(followedAt, monotonic)
    }

    /// Measures now and follows.
    public mutating func follow() {
        let measured = ClockMapping.measure()
        follow(measured: measured.offset, at: measured.monotonic)
    }

    /// The system clock's instant of monotonic seconds `t`, in nanoseconds.
    public func unixNanoseconds(ofMonotonic t: Double) -> Int64 {
        Int64((t * 1e9).rounded()) + offset
    }

    /// The offset now, from the tightest of five bracketed readings.
    public static func measure() -> (offset: Int64, monotonic: Int64) {
        var best: (bracket: Int64, offset: Int64, monotonic: Int64)?
        for _ in 0..<5 {
            let before = read(CLOCK_MONOTONIC), wall = read(CLOCK_REALTIME), after = read(CLOCK_MONOTONIC)
            let middle = before + (after - before) / 2
            if best == nil || after - before < best!.bracket { best = (after - before, wall - middle, middle) }
        }
        return (best!.offset, best!.monotonic)
    }

    private static func read(_ clock: clockid_t) -> Int64 {
        var now = timespec()
        clock_gettime(clock, &now)
        return Int64(now.tv_sec) * 1_000_000_000 + Int64(now.tv_nsec)
    }
}
