// SPDX-License-Identifier: Apache-2.0
import AccelCore
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// What the chip model feels: specific force in g at time t seconds, in the
/// board's axes (+1 g on the axis pointing up at rest).
public protocol MotionSource: AnyObject {
    var name: String { get }
    /// Seconds of motion; after that the source holds its last value, or
    /// starts again if it loops.
    var duration: Double { get }
    func specificForce(at t: Double) -> Vector3
    /// The board's rotation rate at t, rad/s in its axes, right-handed: what
    /// a perfect gyroscope reads. Consistent with `specificForce`: a turn
    /// from one "up" to another is the rate that makes it.
    func rotationRate(at t: Double) -> Vector3
}

extension MotionSource {
    /// A source that says nothing about rotation: a board that does not turn.
    public func rotationRate(at t: Double) -> Vector3 { .zero }
}

/// A recorded trace, linearly interpolated between rows. Calls with rising
/// t (the normal case) cost O(1); jumps back fall back to a binary search.
public final class TraceMotion: MotionSource {
    public let name: String
    public let trace: Trace
    private var cursor = 0
    /// Set for a trace faster than the part that plays it (Trace+Resampling).
    private let bandLimited: BandLimitedRows?

    public init(_ trace: Trace, name: String = "trace") {
        precondition(trace.count > 0, "a trace has at least one row")
        self.trace = trace
        self.name = name
        bandLimited = nil
    }

    /// `trace`, recorded faster than `rate`, as a part sampling at `rate`
    /// reads it: through the part's anti-aliasing low-pass, at whatever
    /// instant its own clock says (Trace+Resampling).
    public init(_ trace: Trace, name: String = "trace", playedAt rate: Double) {
        precondition(trace.count > 0, "a trace has at least one row")
        self.trace = trace
        self.name = name
        bandLimited = BandLimitedRows(trace, playedAt: rate)
    }

    public var duration: Double { trace.duration }

    public func specificForce(at t: Double) -> Vector3 {
        if let bandLimited { return bandLimited.force(at: t) }
        let times = trace.times
        let absolute = t + times[0]
        if absolute <= times[0] { return trace.samples[0] }
        if absolute >= times[times.count - 1] { return trace.samples[times.count - 1] }
        if times[cursor] > absolute {
            var low = 0, high = times.count - 1
            while high - low > 1 {
                let mid = (low + high) / 2
                if times[mid] <= absolute { low = mid } else { high = mid }
            }
            cursor = low
        }
        while times[cursor + 1] < absolute { cursor += 1 }
        let t0 = times[cursor], t1 = times[cursor + 1]
        return trace.samples[cursor].lerp(to: trace.samples[cursor + 1], (absolute - t0) / (t1 - t0))
    }

    /// The trace's rotation rates, interpolated like the force; a trace
    /// without them is a board that does not turn.
    public func rotationRate(at t: Double) -> Vector3 {
        guard let rates = trace.rotationRates else { return .zero }
        if let bandLimited { return bandLimited.rotationRate(at: t) }
        let times = trace.times, absolute = t + times[0]
        if absolute <= times[0] { return rates[0] }
        if absolute >= times[times.count - 1] { return rates[times.count - 1] }
        var low = 0, high = times.count - 1
        while high - low > 1 {
            let mid = (low + high) / 2
            if times[mid] <= absolute { low = mid } else { high = mid }
        }
        return rates[low].lerp(to: rates[high], (absolute - times[low]) / (times[high] - times[low]))
    }
}

/// Built-in motion, as a timeline of simple segments. Used by `--simulate`
/// and by tests that need a known truth.
public final class MotionScript: MotionSource {
    public enum Segment: Sendable {
        /// Held still with this specific force.
        case hold(Vector3, seconds: Double)
        /// Turned at constant angular speed from one "up" to another (unit g).
        case rotate(from: Vector3, to: Vector3, seconds: Double)
        /// Shaken along `axis` (unit vector) at `hertz` with `amplitude` g on top of `base`.
        case shake(base: Vector3, axis: Vector3, amplitude: Double, hertz: Double, seconds: Double)
        /// Falling freely: no specific force at all.
        case freeFall(seconds: Double)
        /// Landing: a half-sine pulse of `peak` g along `axis` on top of `base`.
        case impact(base: Vector3, axis: Vector3, peak: Double, seconds: Double)

        var seconds: Double {
            switch self {
            case .hold(_, let s), .rotate(_, _, let s), .shake(_, _, _, _, let s), .freeFall(let s), .impact(_, _, _, let s): s
            }
        }

        /// A turn's rate: in the board's axes "up" moves from `from` to
        /// `to`, so the board turns about to × from, the angle over the time.
        var rotationRate: Vector3 {
            guard case .rotate(let from, let to, let s) = self else { return .zero }
            let axis = to.normalized.cross(from.normalized)
            let angle = acos(min(max(from.normalized.dot(to.normalized), -1), 1))
            return axis.magnitude > 1e-12 ? axis.normalized * (angle / s) : .zero
        }

        func value(at local: Double) -> Vector3 {
            switch self {
            case .hold(let v, _):
                return v
            case .rotate(let from, let to, let s):
                return slerp(from, to, min(max(local / s, 0), 1))
            case .shake(let base, let axis, let amplitude, let hertz, _):
                return base + axis * (amplitude * sin(2 * .pi * hertz * local))
            case .freeFall:
                return .zero
            case .impact(let base, let axis, let peak, let s):
                return base + axis * (peak * sin(.pi * min(max(local / s, 0), 1)))
            }
        }
    }

    public let name: String
    public let segments: [Segment]
    public let loops: Bool
    private let starts: [Double]
    public let duration: Double

    public init(name: String, segments: [Segment], loops: Bool = true) {
        precondition(!segments.isEmpty)
        self.name = name
        self.segments = segments
        self.loops = loops
        var starts: [Double] = []
        var total = 0.0
        for segment in segments {
            starts.append(total)
            total += segment.seconds
        }
        self.starts = starts
        self.duration = total
    }

    public func specificForce(at t: Double) -> Vector3 {
        var local = max(t, 0)
        if loops { local = local.truncatingRemainder(dividingBy: duration) }
        if local >= duration { return segments[segments.count - 1].value(at: segments[segments.count - 1].seconds) }
        var index = segments.count - 1
        while starts[index] > local { index -= 1 }
        return segments[index].value(at: local - starts[index])
    }

    public func rotationRate(at t: Double) -> Vector3 {
        var local = max(t, 0)
        if loops { local = local.truncatingRemainder(dividingBy: duration) }
        if local >= duration { return .zero }
        var index = segments.count - 1
        while starts[index] > local { index -= 1 }
        return segments[index].rotationRate
    }

    /// Where "up" points for each of the six faces, in g.
    public static let up: [String: Vector3] = [
        "faceUp": Vector3(0, 0, 1), "faceDown": Vector3(0, 0, -1),
        "portrait": Vector3(0, 1, 0), "portraitUpsideDown": Vector3(0, -1, 0),
        "landscapeLeft": Vector3(1, 0, 0), "landscapeRight": Vector3(-1, 0, 0),
    ]

    /// Flat on a table, face up.
    public static func rest() -> MotionScript {
        MotionScript(name: "rest", segments: [.hold(Vector3(0, 0, 1), seconds: 1)])
    }

    /// All six faces in a cycle where each turn is 90°: faceUp, landscapeLeft,
    /// portrait, faceDown, landscapeRight, portraitUpsideDown, and back.
    /// Each face is held `hold` seconds, each turn takes `turn` seconds.
    public static func tour(hold: Double = 2, turn: Double = 1) -> MotionScript {
        let order = ["faceUp", "landscapeLeft", "portrait", "faceDown", "landscapeRight", "portraitUpsideDown"]
        var segments: [Segment] = []
        for (index, face) in order.enumerated() {
            let next = order[(index + 1) % order.count]
            segments.append(.hold(up[face]!, seconds: hold))
            segments.append(.rotate(from: up[face]!, to: up[next]!, seconds: turn))
        }
        return MotionScript(name: "tour", segments: segments)
    }

    /// Flat, then 1.5 s of shaking along X at 5 Hz and ±1.5 g, then flat.
    public static func shake() -> MotionScript {
        MotionScript(name: "shake", segments: [
            .hold(Vector3(0, 0, 1), seconds: 1),
            .shake(base: Vector3(0, 0, 1), axis: Vector3(1, 0, 0), amplitude: 1.5, hertz: 5, seconds: 1.5),
            .hold(Vector3(0, 0, 1), seconds: 1.5),
        ])
    }

    /// Flat, a 0.5 s free fall (1.2 m), a 20 ms landing of 6 g, flat again.
    public static func drop() -> MotionScript {
        MotionScript(name: "drop", segments: [
            .hold(Vector3(0, 0, 1), seconds: 1),
            .freeFall(seconds: 0.5),
            .impact(base: Vector3(0, 0, 1), axis: Vector3(0, 0, 1), peak: 6, seconds: 0.02),
            .hold(Vector3(0, 0, 1), seconds: 1.48),
        ])
    }

    /// The newcomer's demo: the tour, a shake, a drop; about 25 s, looping.
    public static func demo() -> MotionScript {
        MotionScript(name: "demo", segments: tour().segments + shake().segments + drop().segments)
    }

    public static let names = ["rest", "tour", "shake", "drop", "demo"]

    public static func named(_ name: String) -> MotionScript? {
        switch name {
        case "rest": rest()
        case "tour": tour()
        case "shake": shake()
        case "drop": drop()
        case "demo": demo()
        default: nil
        }
    }
}

/// Spherical interpolation between two directions, keeping |v| = 1 g.
func slerp(_ a: Vector3, _ b: Vector3, _ f: Double) -> Vector3 {
    let ua = a.normalized, ub = b.normalized
    let cosine = min(max(ua.dot(ub), -1), 1)
    let angle = acos(cosine)
    if angle < 1e-9 { return ua }
    let s = sin(angle)
    return ua * (sin((1 - f) * angle) / s) + ub * (sin(f * angle) / s)
}

/// A finite motion played again from its start each time it ends
/// (`acceld --simulate TRACE --loop`).
public final class LoopedMotion: MotionSource {
    public let motion: any MotionSource
    public var name: String { motion.name }
    public let duration = Double.infinity

    public init(_ motion: any MotionSource) {
        precondition(motion.duration.isFinite && motion.duration > 0, "only a motion that ends can loop")
        self.motion = motion
    }

    public func specificForce(at t: Double) -> Vector3 {
        motion.specificForce(at: max(t, 0).truncatingRemainder(dividingBy: motion.duration))
    }

    public func rotationRate(at t: Double) -> Vector3 {
        motion.rotationRate(at: max(t, 0).truncatingRemainder(dividingBy: motion.duration))
    }
}
