// SPDX-License-Identifier: Apache-2.0
import AccelDriver

/// The interrupt path's own state, kept apart from what every source
/// shares (the publisher, the driver, the configuration): the line, the
/// thread that waits on it, the chip's clock as its edges tell it, and
/// what the line has done wrong so far. Only the sampler's queue (the
/// interrupt thread, inside it) touches it.
struct InterruptPacing {
    /// Opens the line the chip's INT pin drives ([device] interrupt): set
    /// before `open`, the line paces the reads instead of the timer
    /// (Sampler+Interrupt), and is opened again after it was lost.
    var source: (() throws -> InterruptLine)?
    /// [device] interrupt-fallback = timer: the timer paces the reads while
    /// the line is silent or gone.
    var fallback = false
    /// [power] wake-on-motion (Sampler+Sleep): needs the line.
    var wakeOnMotion: WakeOnMotion?
    /// The line the chip's pin drives; nil before it is opened, or lost.
    var line: InterruptLine?
    var thread: InterruptThread?
    var lastLineAttempt: UInt64 = 0
    /// The chip's sample clock as the edges tell it.
    var clock: EdgeClock
    var lastSequence: UInt32?
    /// Edges the kernel dropped from the line's queue while acceld was late.
    var droppedEdges = 0
    /// A read that found samples overwritten, numbered at the next edge.
    var overrunRead: (reading: Reading, at: UInt64)?
    /// Reads in a row that found a sample with no edge; edges too soon, said so far.
    var silentReads = 0
    var reportedImpossibleEdges = 0
    var lineFaultSaid = false
    /// The INT routing registers as they were before acceld routed a pin.
    var routingFound: [(register: UInt8, value: UInt8)]?
    /// What a FIFO kept while asleep, read at the wake-up and published
    /// with the next read, whose edge numbers them (Sampler+Sleep); edges
    /// stamped before `keptReadAt` told of the routing or of these.
    var kept: [Reading] = []
    var keptReadAt: UInt64?
    /// When a FIFO was read again because its pin stayed up (no edge): that
    /// read took every sample made before it, so an edge stamped earlier,
    /// which the kernel queued meanwhile, told of one of those, not of the
    /// next sample the FIFO holds.
    var readWithoutEdgeAt: UInt64?

    init(rate: Int) {
        clock = EdgeClock(rate: rate)
    }
}
