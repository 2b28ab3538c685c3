// SPDX-License-Identifier: Apache-2.0
/// Free fall: |a| below a threshold for a minimum time. One event when the
/// fall is recognised (dated from its first sample) and one when it ends,
/// with the duration and the drop height it implies (g·t²/2). Bounces after
/// the landing are part of the same drop (see `rearmSeconds`).
public struct FreeFallDetector: Sendable {
    public enum Event: Sendable, Equatable {
        case started(t: Double, start: Double)
        case ended(t: Double, start: Double, duration: Double, height: Double)
    }

    /// Standard gravity, m/s².
    public static let standardGravity = 9.80665

    public var settings: FreeFallSettings
    public private(set) var isFalling = false
    /// True after a fall until the board has been calm for `rearmSeconds`:
    /// the landing and its bounces.
    public var isSettling: Bool { disarmedLow != nil }
    private var lowSince: Double?
    private var disarmedLow: Double?

    public init(settings: FreeFallSettings = FreeFallSettings()) { self.settings = settings }

    public mutating func process(magnitude: Double, t: Double) -> Event? {
        let low = magnitude < settings.threshold
        if let lastLow = disarmedLow {
            if low { disarmedLow = t } else if t - lastLow >= settings.rearmSeconds { disarmedLow = nil }
            return nil
        }
        if isFalling {
            guard magnitude >= settings.exitThreshold, let start = lowSince else { return nil }
            isFalling = false
            lowSince = nil
            disarmedLow = t
            let duration = t - start
            return .ended(t: t, start: start, duration: duration,
                          height: FreeFallDetector.standardGravity * duration * duration / 2)
        }
        guard low else {
            lowSince = nil
            return nil
        }
        let start = lowSince ?? t
        lowSince = start
        guard t - start >= settings.minimumSeconds - 1e-9 else { return nil }
        isFalling = true
        return .started(t: t, start: start)
    }
}
