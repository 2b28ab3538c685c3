// SPDX-License-Identifier: Apache-2.0
import AccelCore
import Testing
@testable import AccelMotion

#if canImport(Glibc)
import Glibc
#endif

@Suite("Gravity filter")
struct GravityFilterTests {
    /// Steady-state gain of the filter for a sine at `hertz`, sampled at `rate`.
    func gain(_ filter: GravitySettings.Filter, cutoff: Double = 2, hertz: Double, rate: Double) -> Double {
        var settings = GravitySettings()
        settings.filter = filter
        settings.cutoffHz = cutoff
        var f = GravityFilter(settings: settings)
        var peak = 0.0
        let n = Int(rate * 10)
        for i in 0..<n {
            let t = Double(i) / rate
            let out = f.process(Vector3(sin(2 * .pi * hertz * t), 0, 0), t: t)
            if t > 5 { peak = max(peak, abs(out.x)) }
        }
        return peak
    }

    @Test("the cut-off filter responds the same at 100 and 400 Hz (within 1 %)", arguments: [0.5, 2.0, 5.0])
    func rateIndependentResponse(hertz: Double) {
        let at100 = gain(.exponential, hertz: hertz, rate: 100)
        let at400 = gain(.exponential, hertz: hertz, rate: 400)
        #expect(abs(at100 - at400) / at400 < 0.01, "\(at100) vs \(at400)")
    }

    @Test("the gain at the cut-off frequency is about 1/√2")
    func cutoffGain() {
        let g = gain(.exponential, hertz: 2, rate: 400)
        #expect(abs(g - 0.7071) < 0.02, "\(g)")
    }

    @Test("the classic per-sample filter does not: its cut-off moves with the rate")
    func classicDependsOnRate() {
        let at100 = gain(.classic, hertz: 2, rate: 100)
        let at400 = gain(.classic, hertz: 2, rate: 400)
        // 0.1 per sample is a 1.7 Hz cut-off at 100 Hz but 6.7 Hz at 400 Hz.
        #expect(at400 / at100 > 1.3, "\(at100) vs \(at400)")
    }

    @Test("the step response reaches 63 % after one time constant at both rates")
    func stepResponse() {
        for rate in [100.0, 400.0] {
            var settings = GravitySettings()
            settings.filter = .exponential
            settings.cutoffHz = 2
            var f = GravityFilter(settings: settings)
            _ = f.process(.zero, t: 0)
            let tau = 1 / (2 * Double.pi * 2)
            var out = Vector3.zero
            var t = 0.0
            while t < tau - 1e-9 {
                t += 1 / rate
                out = f.process(Vector3(1, 0, 0), t: t)
            }
            // The last step lands up to one sample past tau.
            let expected = 1 - exp(-t / tau)
            #expect(abs(out.x - expected) < 1e-9)
            #expect(abs(out.x - 0.632) < 0.05)
        }
    }

    @Test("every filter starts from the first sample: no start-up transient", arguments: GravitySettings.Filter.allCases)
    func noTransient(filter: GravitySettings.Filter) {
        var settings = GravitySettings()
        settings.filter = filter
        var f = GravityFilter(settings: settings)
        #expect(f.process(Vector3(0.1, 0.2, 0.97), t: 12.5) == Vector3(0.1, 0.2, 0.97))
        #expect(f.process(Vector3(0.1, 0.2, 0.97), t: 12.51) == Vector3(0.1, 0.2, 0.97))
    }

    @Test("the adaptive filter follows a tilt quickly but barely moves during a shake")
    func adaptiveBehaviour() {
        var adaptive = GravityFilter()
        // The detectors' baseline: the same filter, slowed further.
        var baseline = GravityFilter(settings: GravitySettings().baseline)
        var exponential = GravityFilter(settings: { var s = GravitySettings(); s.filter = .exponential; return s }())
        let rate = 100.0
        // 1 s of shaking along X at 5 Hz, ±1.5 g, on top of gravity.
        var worstAdaptive = 0.0, worstBaseline = 0.0, worstExponential = 0.0
        for i in 0..<Int(rate) {
            let t = Double(i) / rate
            let a = Vector3(1.5 * sin(2 * .pi * 5 * t), 0, 1)
            worstAdaptive = max(worstAdaptive, abs(adaptive.process(a, t: t).x))
            worstBaseline = max(worstBaseline, abs(baseline.process(a, t: t).x))
            worstExponential = max(worstExponential, abs(exponential.process(a, t: t).x))
        }
        #expect(worstAdaptive < worstExponential / 2, "\(worstAdaptive) vs \(worstExponential)")
        #expect(worstBaseline < worstExponential / 3, "\(worstBaseline) vs \(worstExponential)")
        // A clean 90° tilt is followed as fast as the exponential filter.
        var tilt = GravityFilter()
        _ = tilt.process(flat, t: 0)
        var g = Vector3.zero
        for i in 1...50 { g = tilt.process(Vector3(0, 1, 0), t: Double(i) / rate) }
        #expect(g.y > 0.7, "\(g)")
    }
}

@Suite("Attitude")
struct AttitudeTests {
    @Test("pitch and roll from gravity: +Y edge up is positive pitch, +X edge down is positive roll")
    func signs() {
        let up = Attitude(gravity: tilted(30))
        #expect(abs(up.pitch * 180 / .pi - 30) < 1e-9)
        #expect(abs(up.roll) < 1e-9)
        let rolled = Attitude(gravity: Vector3(-sin(0.3), 0, cos(0.3)))
        #expect(abs(rolled.roll - 0.3) < 1e-9)
    }

    @Test("the quaternion and the matrix describe the same rotation, and the matrix's last row is the felt gravity")
    func quaternionMatchesMatrix() {
        let a = Attitude(pitch: 0.4, roll: -0.7)
        let q = a.quaternion
        let m = a.rotationMatrix
        // Rotation matrix from the quaternion (standard formula).
        let fromQ = [
            Vector3(1 - 2 * (q.y * q.y + q.z * q.z), 2 * (q.x * q.y - q.z * q.w), 2 * (q.x * q.z + q.y * q.w)),
            Vector3(2 * (q.x * q.y + q.z * q.w), 1 - 2 * (q.x * q.x + q.z * q.z), 2 * (q.y * q.z - q.x * q.w)),
            Vector3(2 * (q.x * q.z - q.y * q.w), 2 * (q.y * q.z + q.x * q.w), 1 - 2 * (q.x * q.x + q.y * q.y)),
        ]
        for (r, s) in zip(m, fromQ) { #expect((r - s).magnitude < 1e-12) }
        let felt = Attitude(gravity: m[2])
        #expect(abs(felt.pitch - 0.4) < 1e-12 && abs(felt.roll + 0.7) < 1e-12)
    }

    @Test("relative to itself the attitude is level; relative to level it is unchanged")
    func reference() {
        let a = Attitude(pitch: 0.3, roll: 0.5)
        let same = a.relative(to: a)
        #expect(abs(same.pitch) < 1e-12 && abs(same.roll) < 1e-12)
        let unchanged = a.relative(to: .level)
        #expect(abs(unchanged.pitch - 0.3) < 1e-12 && abs(unchanged.roll - 0.5) < 1e-12)
        // Zeroed on a 20° ramp, then tilted 10° more about the same axis.
        let ramp = Attitude(pitch: 20 * .pi / 180, roll: 0)
        let more = Attitude(pitch: 30 * .pi / 180, roll: 0).relative(to: ramp)
        #expect(abs(more.pitch * 180 / .pi - 10) < 1e-9)
    }
}
