// SPDX-License-Identifier: Apache-2.0
import AccelCore

/// Taps and double taps, in the spirit of the LIS302DL's click unit but in
/// seconds: a tap is a short spike of user acceleration on a board that was
/// still just before and is still again just after. The rules are physical:
///
/// - **Still before**: the mean |user| over the `quietSeconds` before the
///   spike began rising is at most `quietLevel`. A finger taps a board that
///   rests; steps, drops (falling is |user| ≈ 1 g) and handling are never
///   still before their impacts.
/// - **Short**: from rising through half the threshold to falling back
///   below it takes at most `maximumSeconds`. A finger's impulse is over in
///   one or two samples; a push or a step lasts longer.
/// - **Second tap**: another short spike from `latencySeconds` (the first
///   one's ringing) to `doubleTapSeconds` after the first makes a double tap.
/// - **Still after**: once the ringing (`latencySeconds`) is over, |user|
///   stays below half the threshold for `settleSeconds`. A tap leaves the
///   board where it was; a knock that starts a step or a pick-up does not.
///
/// A double tap is reported when the board has settled after its second
/// spike (0.2 s after it with the defaults). A single tap is reported once
/// `doubleTapSeconds` have passed without a second one (as a gesture
/// recogniser does), and only if nothing came after its ringing.
public struct TapDetector: Sendable {
    public struct Tap: Sendable, Equatable {
        /// When the tap (or double tap) was known: the event's time.
        public let t: Double
        /// The first tap's first sample over the threshold.
        public let start: Double
        /// 1 or 2.
        public let count: Int
        /// Axis and sign of the user acceleration at the (first) tap's peak.
        public let direction: MovementDetector.Direction
        /// Largest |user acceleration| of the taps, g.
        public let peak: Double

        public init(t: Double, start: Double, count: Int, direction: MovementDetector.Direction, peak: Double) {
            self.t = t
            self.start = start
            self.count = count
            self.direction = direction
            self.peak = peak
        }
    }

    private struct Spike {
        /// First sample at or above half the threshold.
        var rise: Double
        /// First sample at or above the threshold.
        var onset: Double
        var peak: Vector3
    }

    private enum State {
        case idle
        /// Inside a spike; `first` is the earlier tap when this is the second.
        case spike(Spike, first: Spike?)
        /// One tap done, waiting for a second.
        case waiting(first: Spike)
        /// Two taps done, waiting for the board to be still again.
        case settling(first: Spike, second: Spike, end: Double)
    }

    public var settings: TapSettings
    private var state = State.idle
    /// |user| over the last `quietSeconds`, for the mean that says "still".
    private var recent = TimeWindow<Double>()
    private var recentSum = 0.0
    private var historyStart: Double?
    /// Last sample at or above half the threshold; where the current run of
    /// such samples began, and whether the board was still just before it:
    /// a spike's own rise (several samples at 400 Hz) does not count
    /// against the stillness.
    private var lastLoud = -Double.infinity
    private var lastSample = -Double.infinity
    private var riseStart = -Double.infinity
    private var stillBeforeRise = false

    public init(settings: TapSettings = TapSettings()) { self.settings = settings }

    /// The board is falling, landing or being shaken: nothing now is a tap,
    /// and the next tap needs stillness after this.
    public mutating func suppress(t: Double) {
        state = .idle
        lastLoud = t
        lastSample = t
        stillBeforeRise = false
        recent.removeAll()
        recentSum = 0
        historyStart = nil
    }

    public mutating func process(user: Vector3, t: Double) -> Tap? {
        let magnitude = user.magnitude
        // Still: the mean |user| over the last `quietSeconds` (a full
        // window of history) at most `quietLevel`.
        historyStart = historyStart ?? t
        let still = t - historyStart! >= settings.quietSeconds - 1e-9
            && recent.count > 0 && recentSum / Double(recent.count) <= settings.quietLevel
        if magnitude >= settings.threshold / 2 {
            if t - lastLoud > 1.5 * (t - lastSample) {
                riseStart = t
                stillBeforeRise = still
            }
            lastLoud = t
        }
        lastSample = t
        recent.append(t, magnitude)
        recentSum += magnitude
        var dropped = 0.0
        recent.drop(before: t - settings.quietSeconds) { dropped += $0 }
        recentSum -= dropped
        let high = magnitude >= settings.threshold
        switch state {
        case .idle:
            if high && stillBeforeRise {
                state = .spike(Spike(rise: riseStart, onset: t, peak: user), first: nil)
            }
            return nil
        case .spike(var spike, let first):
            if magnitude >= settings.threshold / 2 {
                guard t - spike.rise <= settings.maximumSeconds + 1e-9 else {
                    // Too long for a finger: a push, a step, an impact with a
                    // follow-through. Neither it nor a pending first tap counts.
                    state = .idle
                    return nil
                }
                if magnitude > spike.peak.magnitude { spike.peak = user }
                state = .spike(spike, first: first)
                return nil
            }
            guard let first else {
                state = .waiting(first: spike)
                return nil
            }
            state = .settling(first: first, second: spike, end: t)
            return nil
        case .settling(let first, let second, let end):
            let since = t - end
            guard since >= settings.latencySeconds - 1e-9 else { return nil }
            // A tap leaves the board where it was; a step or a pick-up
            // that began with a knock goes on moving.
            if magnitude >= settings.threshold / 2 {
                state = .idle
                return nil
            }
            guard since >= settings.latencySeconds + settings.settleSeconds - 1e-9 else { return nil }
            state = .idle
            let peak = max(first.peak.magnitude, second.peak.magnitude)
            return Tap(t: t, start: first.onset, count: 2, direction: .init(dominantIn: first.peak), peak: peak)
        case .waiting(let first):
            let since = t - first.onset
            if since >= settings.doubleTapSeconds - 1e-9 {
                state = .idle
                // Still again by now, or it was the start of something bigger.
                guard t - lastLoud >= settings.doubleTapSeconds - settings.latencySeconds - 1e-9 else { return nil }
                return Tap(t: t, start: first.onset, count: 1, direction: .init(dominantIn: first.peak), peak: first.peak.magnitude)
            }
            if high && since >= settings.latencySeconds - 1e-9 {
                state = .spike(Spike(rise: riseStart, onset: t, peak: user), first: first)
            }
            return nil
        }
    }
}
