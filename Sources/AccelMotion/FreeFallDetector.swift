// SPDX-License-Identifier: Apache-2.0
/// Free fall: |a| near zero. A quick gesture (a chop, a whip, a slam) also
/// drops |a| low for 0.1 to 0.2 s, so one event cannot be both early and
/// certain; the detector says what it knows when it knows it:
///
/// 1. `started`: |a| has been below `threshold` for `minimumSeconds` and its
///    mean since the first low sample is at most `confirmMagnitude`: an early
///    warning, in time to act before a table-height drop lands.
/// 2. `confirmed`: the same has held for `confirmSeconds`, longer than any
///    gesture's low phase: this is a fall. Or `withdrawn`: |a| came back first
///    (or the low phase was not free), it was a gesture.
/// 3. `ended` (confirmed falls only): |a| reached `exitThreshold`, with the
///    duration and the height it implies (g·t²/2).
///
/// Every event is dated from the fall's first low sample. Bounces after the
/// landing are part of the same drop (see `rearmSeconds`).
public struct FreeFallDetector: Sendable {
    public enum Event: Sendable, Equatable {
        case started(t: Double, start: Double)
        case confirmed(t: Double, start: Double)
        case withdrawn(t: Double, start: Double, duration: Double)
        case ended(t: Double, start: Double, duration: Double, height: Double)

        public var t: Double {
            switch self {
            case .started(let t, _), .confirmed(let t, _), .withdrawn(let t, _, _), .ended(let t, _, _, _): t
            }
        }
    }

    /// Standard gravity, m/s².
    public static let standardGravity = 9.80665

    public var settings: FreeFallSettings
    /// A warning is out (confirmed or not) and |a| has not come back.
    public private(set) var isFalling = false
    /// The fall in progress has been confirmed.
    public private(set) var isConfirmed = false
    /// True after a confirmed fall until the board has been calm for
    /// `rearmSeconds`: the landing and its bounces.
    public var isSettling: Bool { disarmedLow != nil }
    private var lowSince: Double?
    private var magnitudeSum = 0.0
    private var sampleCount = 0
    private var disarmedLow: Double?

    public init(settings: FreeFallSettings = FreeFallSettings()) { self.settings = settings }

    public mutating func process(magnitude: Double, t: Double) -> Event? {
        let low = magnitude < settings.threshold
        if let lastLow = disarmedLow {
            if low { disarmedLow = t } else if t - lastLow >= settings.rearmSeconds { disarmedLow = nil }
            return nil
        }
        if let start = lowSince, magnitude < settings.exitThreshold, low || isFalling {
            magnitudeSum += magnitude
            sampleCount += 1
            let lasted = t - start
            // Free fall is |a| ≈ 0 (drag and spin add about 0.1 g); a gesture's
            // low phase passes through on its way back, its mean stays higher.
            let free = magnitudeSum / Double(sampleCount) <= settings.confirmMagnitude
            if !isFalling {
                guard low, lasted >= settings.minimumSeconds - 1e-9, free else { return nil }
                isFalling = true
                return .started(t: t, start: start)
            }
            if !isConfirmed, free, lasted >= settings.confirmSeconds - 1e-9 {
                isConfirmed = true
                return .confirmed(t: t, start: start)
            }
            return nil
        }
        // |a| is back (or was never low).
        defer {
            lowSince = low ? t : nil
            magnitudeSum = low ? magnitude : 0
            sampleCount = low ? 1 : 0
        }
        guard isFalling, let start = lowSince else { return nil }
        isFalling = false
        let duration = t - start
        guard isConfirmed else { return .withdrawn(t: t, start: start, duration: duration) }
        isConfirmed = false
        disarmedLow = t
        return .ended(t: t, start: start, duration: duration,
                      height: FreeFallDetector.standardGravity * duration * duration / 2)
    }
}
