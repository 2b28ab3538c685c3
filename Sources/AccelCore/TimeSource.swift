// SPDX-License-Identifier: Apache-2.0
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Where the driver and the chip model get time from. Live code uses
/// CLOCK_MONOTONIC and really sleeps; tests and replay use `VirtualTime`,
/// whose clock only moves when someone sleeps or advances it, so a
/// ten-minute trace replays in milliseconds and every run is identical.
public protocol TimeSource: AnyObject {
    /// Monotonic nanoseconds.
    var nanoseconds: UInt64 { get }
    func sleep(nanoseconds: UInt64)
}

extension TimeSource {
    public var seconds: Double { Double(nanoseconds) / 1e9 }
    public func sleep(seconds: Double) { sleep(nanoseconds: UInt64((seconds * 1e9).rounded())) }
}

/// CLOCK_MONOTONIC and nanosleep. (Unchecked: it has no state.)
public final class MonotonicTime: TimeSource, @unchecked Sendable {
    public init() {}

    public static func now() -> UInt64 {
        var ts = timespec()
        clock_gettime(CLOCK_MONOTONIC, &ts)
        return UInt64(ts.tv_sec) * 1_000_000_000 + UInt64(ts.tv_nsec)
    }

    public var nanoseconds: UInt64 { Self.now() }

    public func sleep(nanoseconds: UInt64) {
        var request = timespec(tv_sec: Int(nanoseconds / 1_000_000_000), tv_nsec: Int(nanoseconds % 1_000_000_000))
        var remaining = timespec()
        while nanosleep(&request, &remaining) != 0 && errno == EINTR { request = remaining }
    }
}

/// A clock that moves only when told to. Not thread-safe: confine it to
/// one thread or queue, like the model it drives.
public final class VirtualTime: TimeSource, @unchecked Sendable {
    public private(set) var nanoseconds: UInt64

    public init(nanoseconds: UInt64 = 0) { self.nanoseconds = nanoseconds }

    public func sleep(nanoseconds delta: UInt64) { nanoseconds += delta }

    public func advance(seconds: Double) { sleep(seconds: seconds) }

    public func set(nanoseconds: UInt64) {
        precondition(nanoseconds >= self.nanoseconds, "virtual time never runs backwards")
        self.nanoseconds = nanoseconds
    }
}
