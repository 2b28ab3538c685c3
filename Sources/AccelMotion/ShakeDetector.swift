// SPDX-License-Identifier: Apache-2.0
import AccelCore

/// Recognises a shake: over the last `windowSeconds`, enough samples with
/// |user acceleration| above the threshold, spread over a minimum span,
/// with the direction reversing back and forth. Everything is in seconds,
/// so 32, 100 and 400 Hz behave alike. Two events per shake, as Core
/// Motion's motionBegan and motionEnded: `started` as soon as it is
/// recognised (dated from its first active sample), and `ended` once the
/// board has been calm for `endSeconds`, with start, duration and peak.
public struct ShakeDetector: Sendable {
    public enum Event: Sendable, Equatable {
        case started(t: Double, start: Double)
        /// `peak`: largest |user acceleration| during it, in g.
        case ended(t: Double, start: Double, duration: Double, peak: Double)

        public var t: Double {
            switch self {
            case .started(let t, _), .ended(let t, _, _, _): t
            }
        }

        public var start: Double {
            switch self {
            case .started(_, let start), .ended(_, let start, _, _): start
            }
        }
    }

    public var settings: ShakeSettings
    public private(set) var isShaking = false
    private var samples = TimeWindow<Bool>()
    private var active = TimeWindow<Double>()
    private var reversals = TimeWindow<Bool>()
    /// Direction of the current stroke: the active sample after the last reversal.
    private var lastActive: Vector3?
    private var start = 0.0
    private var lastActiveTime = -Double.infinity
    private var peak = 0.0
    private var lastEnd = -Double.infinity

    public init(settings: ShakeSettings = ShakeSettings()) { self.settings = settings }

    /// Ends a shake in progress now (it turned out to be the wind-up of a
    /// throw): the `ended` event for the `started` one already sent.
    public mutating func interrupt(t: Double) -> Event? {
        guard isShaking else { return nil }
        return finish(t: t)
    }

    public mutating func process(user: Vector3, t: Double) -> Event? {
        let magnitude = user.magnitude
        let isActive = magnitude >= settings.threshold
        samples.append(t, isActive)
        if isActive {
            // Against the stroke's direction, not the previous sample's: at
            // 400 Hz a swing turns through 180° in small steps, none of which
            // is a reversal on its own.
            if let stroke = lastActive {
                if stroke.dot(user) < 0 {
                    reversals.append(t, true)
                    lastActive = user
                }
            } else {
                lastActive = user
            }
            active.append(t, magnitude)
            lastActiveTime = t
        }
        let cutoff = t - settings.windowSeconds
        samples.drop(before: cutoff)
        active.drop(before: cutoff)
        reversals.drop(before: cutoff)
        let fraction = Double(active.count) / Double(samples.count)

        if !isShaking {
            let span = (active.lastTime ?? 0) - (active.firstTime ?? 0)
            guard fraction >= settings.fraction, reversals.count >= settings.minimumReversals,
                  span >= settings.minimumSpanSeconds, t - lastEnd >= settings.minimumIntervalSeconds
            else { return nil }
            isShaking = true
            start = active.firstTime!
            peak = 0
            active.forEach { _, m in peak = max(peak, m) }
            return .started(t: t, start: start)
        }
        peak = max(peak, magnitude)
        // A pause shorter than `endSeconds` is part of the same shake.
        guard fraction < settings.rearmFraction, t - lastActiveTime >= settings.endSeconds - 1e-9 else { return nil }
        return finish(t: t)
    }

    /// `t`: when the end is known (the event's time); the shake itself
    /// ended at its last active sample.
    private mutating func finish(t: Double) -> Event {
        isShaking = false
        lastEnd = lastActiveTime
        lastActive = nil
        return .ended(t: t, start: start, duration: lastActiveTime - start, peak: peak)
    }
}
