// SPDX-License-Identifier: Apache-2.0
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The socket gives every instant in CLOCK_MONOTONIC seconds (steady, and
/// comparable across clients), which no person reads. A client on the same
/// host turns one into wall-clock time with the two clocks' present offset.
public enum WallClock {
    /// Seconds since the Unix epoch of the monotonic instant `t`.
    public static func unixSeconds(ofMonotonic t: Double) -> Double {
        var wall = timespec(), steady = timespec()
        clock_gettime(CLOCK_REALTIME, &wall)
        clock_gettime(CLOCK_MONOTONIC, &steady)
        let offset = Double(wall.tv_sec - steady.tv_sec) + Double(wall.tv_nsec - steady.tv_nsec) / 1e9
        return t + offset
    }

    /// "14:03:07.512": local time of day with milliseconds.
    public static func localTime(unixSeconds: Double) -> String {
        var whole = time_t(unixSeconds.rounded(.down))
        var milliseconds = Int(((unixSeconds - Double(whole)) * 1000).rounded())
        if milliseconds == 1000 { whole += 1; milliseconds = 0 }
        var parts = tm()
        localtime_r(&whole, &parts)
        func two(_ n: Int32) -> String { n < 10 ? "0\(n)" : "\(n)" }
        let ms = milliseconds < 10 ? "00\(milliseconds)" : milliseconds < 100 ? "0\(milliseconds)" : "\(milliseconds)"
        return "\(two(parts.tm_hour)):\(two(parts.tm_min)):\(two(parts.tm_sec)).\(ms)"
    }
}

/// How a tool shows a person an instant: the local time of a live
/// daemon's event, or seconds since the start of a recording replayed.
public enum EventClock: Sendable {
    case wallClock
    case sinceStart(Double)

    public func text(_ t: Double) -> String {
        switch self {
        case .wallClock: WallClock.localTime(unixSeconds: WallClock.unixSeconds(ofMonotonic: t))
        case .sinceStart(let start): "+\(fixed(t - start, 3)) s"
        }
    }
}
