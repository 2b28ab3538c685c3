// SPDX-License-Identifier: Apache-2.0
import AccelCore
@testable import AccelMotion

#if canImport(Glibc)
import Glibc
#endif

/// Samples of `force(t)` at `rate` Hz for `seconds`.
func samples(rate: Double, seconds: Double, from start: Double = 0, _ force: (Double) -> Vector3) -> [Sample] {
    let count = Int((seconds * rate).rounded())
    return (0..<count).map { i in
        let t = start + Double(i) / rate
        return Sample(seq: UInt64(i), t: t, counts: Counts(0, 0, 0), g: force(t))
    }
}

/// Runs samples through a fresh pipeline and returns every event.
func events(of input: [Sample], settings: MotionSettings = MotionSettings()) -> [MotionEvent] {
    var pipeline = MotionPipeline(settings: settings)
    var out: [MotionEvent] = []
    for sample in input { _ = pipeline.process(sample, events: &out) }
    return out
}

let flat = Vector3(0, 0, 1)

/// Unit "up" at `degrees` from +Z toward +Y.
func tilted(_ degrees: Double) -> Vector3 {
    let r = degrees * .pi / 180
    return Vector3(0, sin(r), cos(r))
}

extension MotionEvent {
    /// A shake that is over, with what its `end` message carries.
    var shake: (t: Double, start: Double, duration: Double, peak: Double)? {
        if case .shake(.ended(let t, let start, let duration, let peak)) = self { (t, start, duration, peak) } else { nil }
    }
    /// When a shake's `start` message came, and the start it gave.
    var shakeStarted: (t: Double, start: Double)? {
        if case .shake(.started(let t, let start)) = self { (t, start) } else { nil }
    }
    var fall: FreeFallDetector.Event? { if case .freeFall(let f) = self { f } else { nil } }
    var tap: TapDetector.Tap? { if case .tap(let tap) = self { tap } else { nil } }
    var orientationChange: OrientationDetector.Change? { if case .orientation(let o) = self { o } else { nil } }
    var movement: MovementDetector.Movement? { if case .movement(let m) = self { m } else { nil } }
}
