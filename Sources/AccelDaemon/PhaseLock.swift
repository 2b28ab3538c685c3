// SPDX-License-Identifier: Apache-2.0
/// When to read so that each read finds exactly one new sample. Normally
/// the next read comes just after the next sample is due (`margin`). Every
/// 40th read (more often while acquiring) comes a little early instead: it
/// finds nothing, the `nudge` later finds the sample, and the two bracket
/// its real instant. `PhaseFit` turns these measurements into the chip's
/// real period and phase, so a chip whose clock is off (±10 % is allowed)
/// is followed without overruns, at about 1.03 reads per sample.
///
/// Reads that keep coming too late (4 of the last 32 found samples
/// overwritten or waiting) mean the fit has lost the chip's period, which
/// no probe can correct since none comes up empty: the phase is then
/// acquired again from the nominal period. Instants are nanoseconds.
struct PhaseLock {
    private(set) var fit: PhaseFit
    private var nominalPeriod: Double
    private var probeCountdown = 1
    /// A probe is under way, and how early it aims (nil: `initialLead`).
    private var probing = false
    private var probeLead: Double?
    private var readsSinceAcquisition = 0
    /// Which of the last 32 judged reads came late (bit 0 the latest).
    private var lateHistory: UInt32 = 0

    init(rate: Int) {
        nominalPeriod = 1e9 / Double(rate)
        fit = PhaseFit(nominalPeriod: nominalPeriod)
    }

    /// The chip's real output period as measured.
    var period: Double { fit.slope }
    /// How long after a sample is due the normal read comes: 15 % of a
    /// period, at most 0.3 ms (enough for the fit's error and timer jitter,
    /// little enough for latency).
    var margin: Double { min(period * 0.15, 300_000) }
    /// How long after an empty read the next one comes: a fifth of a
    /// period, at most 0.5 ms. It is also the width of a phase measurement.
    var nudge: Double { min(period / 5, 500_000) }
    /// How early a probe aims: 15 % of a period, at most 0.4 ms (the fit is
    /// good to a few per cent), so one nudge usually finds the sample.
    private var initialLead: Double { min(period * 0.15, 400_000) }

    /// Forgets the fitted clock and probes for the phase from the nominal
    /// period (of `rate`, when it changed).
    mutating func acquire(rate: Int? = nil) {
        if let rate { nominalPeriod = 1e9 / Double(rate) }
        // Lost while the CPU was starved, a line measured over many points
        // and not at the clamp is still the chip's clock: it goes on
        // numbering the reads until new points replace it, and its period
        // is the one to expect (also after a loss before the new fit had
        // as many points). Numbering from elapsed time at the nominal
        // period put a 5 % fast chip 10 samples behind in 0.7 s of
        // starvation at 400 Hz.
        let measured = rate == nil && fit.count >= 8 && abs(fit.slope / nominalPeriod - 1) < 0.12
        fit.reset(expectedPeriod: rate != nil ? nominalPeriod : measured ? fit.slope : fit.expectedPeriod, keepingLine: measured)
        probeCountdown = 1
        probing = false
        probeLead = nil
        readsSinceAcquisition = 0
        lateHistory = 0
    }

    /// Sample `seq` was made at `instant`, bracketed between an empty read
    /// and the one that found it.
    mutating func measured(seq: UInt64, at instant: Double) {
        probing = false
        probeLead = nil
        fit.add(seq: seq, t: instant, nominalPeriod: nominalPeriod)
    }

    /// A coarse measurement (a FIFO batch's newest sample).
    mutating func add(seq: UInt64, at instant: Double) {
        fit.add(seq: seq, t: instant, nominalPeriod: nominalPeriod)
    }

    /// A rejected read ends any probe: its early find told nothing.
    mutating func abandonProbe() {
        probing = false
        probeLead = nil
    }

    /// Counts a published read, `late` when it found a sample overwritten
    /// or more than one waiting. Judged from the 64th read after an
    /// acquisition on: acquiring overruns a little by itself, and a CPU
    /// starved then would otherwise reacquire again and again.
    mutating func recordRead(late: Bool) {
        readsSinceAcquisition += 1
        lateHistory = readsSinceAcquisition > 64 ? lateHistory << 1 | (late ? 1 : 0) : 0
    }

    /// Reads keep coming too late: acquire the phase again.
    var isLost: Bool { lateHistory.nonzeroBitCount >= 4 }
    var lateReads: Int { lateHistory.nonzeroBitCount }

    /// The instant of the next read, after sample `seq - 1` was published
    /// as made at `instant` (`seq` is the next one's number).
    mutating func nextRead(after instant: Double, seq: UInt64) -> Double {
        if probing {
            // The probe found data already: the prediction is late. Lead
            // twice as much and probe again, until a read comes up empty.
            probing = false
            probeLead = min((probeLead ?? initialLead) * 2, period * 0.9)
            probeCountdown = 1
        }
        probeCountdown -= 1
        let next = fit.isUsable ? fit.instant(of: seq) : instant + period
        guard probeCountdown <= 0 else { return next + margin }
        // Often while acquiring, then rarely: the fit spans 32 points.
        probeCountdown = fit.count < 4 ? 2 : fit.count < 8 ? 8 : 40
        probing = true
        return next - (probeLead ?? initialLead)
    }

    /// The newest sample the fit says was made by a read between `now` and
    /// `after`, at the earliest and latest (widened by the fit's error: 8 %
    /// of a period, or three standard errors where that is more); nil
    /// without a usable fit.
    func newestCandidates(_ now: UInt64, _ after: UInt64) -> (earliest: Int64, latest: Int64)? {
        guard fit.isUsable else { return nil }
        let error = error(at: Double(now))
        return (fit.newest(at: Double(now) - error, lead: 0), fit.newest(at: Double(after) + error, lead: 0))
    }

    /// How far the fit may place an instant near `t`: 8 % of a period, or
    /// three standard errors where that is more.
    func error(at t: Double) -> Double {
        max(0.08 * period, 3 * fit.standardError(at: Double(fit.newest(at: t, lead: 0))))
    }

    /// The first instant from `t` on that the fit places clearly between
    /// two samples (beyond its error of either): a read made there finds
    /// either nothing or one sample, whichever the fit says.
    func clearInstant(from t: Double) -> Double {
        let error = error(at: t)
        let k = UInt64(max(fit.newest(at: t, lead: 0), 0))
        if t < fit.instant(of: k) + error { return fit.instant(of: k) + period / 4 }
        if t > fit.instant(of: k + 1) - error { return fit.instant(of: k + 1) + period / 4 }
        return t
    }
}
