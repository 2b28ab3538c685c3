// SPDX-License-Identifier: Apache-2.0
import AccelCore

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Splits specific force into gravity (low-passed) and user acceleration
/// (the rest), as Core Motion's `gravity` and `userAcceleration`.
///
/// Cut-offs are in Hz and the per-sample factor is derived from each
/// sample's real interval (α = 1 − e^(−2π·fc·Δt)), so the filter is the same
/// continuous-time filter at 100 Hz, 400 Hz or a 32 Hz recording, and it
/// tolerates gaps. It starts from the first sample: no start-up transient.
public struct GravityFilter: Sendable {
    public var settings: GravitySettings
    public private(set) var gravity = Vector3.zero
    private var lastT = 0.0
    private var started = false

    public init(settings: GravitySettings = GravitySettings()) { self.settings = settings }

    /// Feeds one sample (g, at t seconds) and returns the new gravity estimate.
    public mutating func process(_ a: Vector3, t: Double) -> Vector3 {
        guard started else {
            started = true
            gravity = a
            lastT = t
            return a
        }
        let dt = max(t - lastT, 0)
        lastT = t
        let alpha: Double
        switch settings.filter {
        case .classic:
            alpha = settings.classicFactor
        case .exponential:
            alpha = GravityFilter.alpha(cutoffHz: settings.cutoffHz, dt: dt)
        case .adaptive:
            let calm = min(max(1 - abs(a.magnitude - 1) / settings.adaptiveBand, 0), 1)
            let cutoff = settings.motionCutoffHz + (settings.cutoffHz - settings.motionCutoffHz) * calm
            alpha = GravityFilter.alpha(cutoffHz: cutoff, dt: dt)
        }
        gravity = gravity + (a - gravity) * alpha
        return gravity
    }

    /// The exact one-pole factor for a cut-off and an interval.
    public static func alpha(cutoffHz: Double, dt: Double) -> Double {
        1 - exp(-2 * .pi * cutoffHz * dt)
    }
}
