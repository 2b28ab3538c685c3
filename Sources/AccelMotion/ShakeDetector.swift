// SPDX-License-Identifier: Apache-2.0
import AccelDriver

/// Recognises a shake: over the last `windowSeconds`, enough samples with
/// |user acceleration| above the threshold, spread over a minimum span,
/// with the direction reversing back and forth. Everything is in seconds,
/// so 32, 100 and 400 Hz behave alike. One event per shake, when it ends
/// (UIKit reports shakes in motionEnded the same way), with its start,
/// duration and peak.
public struct ShakeDetector: Sendable {
    public struct Shake: Sendable, Equatable {
        /// When the shake was over (the event's time).
        public let t: Double
        public let start: Double
        public let duration: Double
        /// Largest |user acceleration| during it, in g.
        public let peak: Double
    }

    public var settings: ShakeSettings
    public private(set) var isShaking = false
    private var samples = TimeWindow<Bool>()
    private var active = TimeWindow<Double>()
    private var reversals = TimeWindow<Bool>()
    private var lastActive: Vector3?
    private var activeCount = 0
    private var start = 0.0
    private var lastActiveTime = 0.0
    private var peak = 0.0
    private var lastEnd = -Double.infinity

    public init(settings: ShakeSettings = ShakeSettings()) { self.settings = settings }

    /// Forgets a shake in progress without reporting it (it turned out to be
    /// the wind-up of a throw).
    public mutating func cancel() {
        guard isShaking else { return }
        isShaking = false
        lastEnd = lastActiveTime
        lastActive = nil
    }

    public mutating func process(user: Vector3, t: Double) -> Shake? {
        let magnitude = user.magnitude
        let isActive = magnitude >= settings.threshold
        samples.append(t, isActive)
        if isActive {
            if let previous = lastActive, previous.dot(user) < 0 { reversals.append(t, true) }
            lastActive = user
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
            return nil
        }
        peak = max(peak, magnitude)
        guard fraction < settings.rearmFraction else { return nil }
        isShaking = false
        lastEnd = lastActiveTime
        lastActive = nil
        return Shake(t: t, start: start, duration: lastActiveTime - start, peak: peak)
    }
}
