// SPDX-License-Identifier: Apache-2.0
import AccelDriver

/// The timer path's own state, kept apart from what every source shares
/// (the publisher, the driver, the configuration), as `InterruptPacing`
/// keeps the interrupt path's: the DispatchSourceTimer, the phase lock on
/// the chip's clock, the data-ready guard, and a read waiting to be
/// numbered. Only the sampler's queue touches it.
struct TimerPacing {
    var timer: SamplerTimer?
    /// The chip's phase as the reads find it (probes, then the fitted line).
    var phase: PhaseLock
    var dataReady = DataReadyGuard()
    /// A read after a gap that may hold one of several samples: the next
    /// read decides (`settle`).
    var undecided: Undecided?
    /// When re-acquiring the phase was last logged (at most once a minute).
    var lastReacquisitionLog: UInt64 = 0

    init(rate: Int) {
        phase = PhaseLock(rate: rate)
    }
}
