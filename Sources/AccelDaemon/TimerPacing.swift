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
    /// A read after a gap that came within the fit's error of the instant of
    /// sample `earlier + 1`: it holds that one or the one before. The next
    /// read, a quarter period after that instant, decides (`decide`).
    var undecided: (reading: Reading, at: UInt64, earlier: UInt64)?
    /// When re-acquiring the phase was last logged (at most once a minute).
    var lastReacquisitionLog: UInt64 = 0

    init(rate: Int) {
        phase = PhaseLock(rate: rate)
    }
}
