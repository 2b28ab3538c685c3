// SPDX-License-Identifier: Apache-2.0

/// A rising edge on the line the chip's INT pin drives.
public struct Edge: Sendable, Equatable {
    /// When it came, CLOCK_MONOTONIC ns (the kernel's stamp, taken in its
    /// interrupt handler; the chip model's sample instant).
    public let instant: UInt64
    /// The line's own count of edges: a jump says edges were queued and
    /// dropped while the reader was late.
    public let sequence: UInt32

    public init(instant: UInt64, sequence: UInt32) {
        self.instant = instant
        self.sequence = sequence
    }
}

/// The GPIO line wired to the chip's INT pin, as a sampler waits on it:
/// a GPIO character device's line on hardware and in the kernel stage,
/// the chip model's pin in tests and `--simulate`.
public protocol InterruptLine: AnyObject {
    /// "gpiochip0 line 17 (GPIO17)", for messages.
    var description: String { get }
    /// Blocks until edges come or `nanoseconds` pass, or `wake` is called
    /// from another thread; returns the edges, oldest first (none on a
    /// timeout or a wake).
    func wait(nanoseconds: UInt64) throws -> [Edge]
    /// Ends a `wait` early, from any thread (a request for the sampler, or stop).
    func wake()
    /// The line's level now (true: high).
    func level() throws -> Bool
}
