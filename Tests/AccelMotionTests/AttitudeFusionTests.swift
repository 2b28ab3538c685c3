// SPDX-License-Identifier: Apache-2.0
import AccelCore
import Testing
@testable import AccelMotion

#if canImport(Glibc)
import Glibc
#endif

/// A board turning as `attitude(t)` says (board axes into Z-up), sampled
/// at `rate`: the specific force it feels (up, plus `push(t)` in board
/// axes) and the rate a perfect gyroscope reads, plus `bias` and noise.
struct Motion {
    var rate = 104.0
    var attitude: (Double) -> Quaternion
    var push: (Double) -> Vector3 = { _ in .zero }
    var bias = Vector3.zero
    /// rad/s rms per axis.
    var noise = 0.0
    var range = Double.infinity

    func samples(seconds: Double, seed: UInt64 = 1) -> [Sample] {
        var random = SeededRandom(seed: seed)
        let dt = 1 / rate
        return (0..<Int(seconds * rate)).map { i in
            let t = Double(i) * dt
            // The body rate that turns attitude(t) into attitude(t + dt).
            let step = attitude(t).conjugate * attitude(t + dt)
            let angle = 2 * atan2(Vector3(step.x, step.y, step.z).magnitude, step.w)
            let axis = Vector3(step.x, step.y, step.z).normalized
            var rate = axis * (angle / dt) + bias
            rate = rate + Vector3(random.gaussian(), random.gaussian(), random.gaussian()) * noise
            rate = Vector3(clip(rate.x), clip(rate.y), clip(rate.z))
            return Sample(seq: UInt64(i), t: t, counts: Counts(0, 0, 0), g: attitude(t).up + push(t), rotationRate: rate)
        }
    }

    private func clip(_ v: Double) -> Double { min(max(v, -range), range) }
}

func degrees(_ radians: Double) -> Double { radians * 180 / .pi }
func radians(_ degrees: Double) -> Double { degrees * .pi / 180 }
let up = Vector3(0, 0, 1)

func run(_ samples: [Sample], settings: MotionSettings = MotionSettings(), range: Double = .infinity) -> [Frame] {
    var pipeline = MotionPipeline(settings: settings, gyroscopeRange: range)
    var events: [MotionEvent] = []
    return samples.map { pipeline.process($0, events: &events) }
}

func angleBetween(_ a: Vector3, _ b: Vector3) -> Double {
    degrees(acos(min(max(a.normalized.dot(b.normalized), -1), 1)))
}

@Suite("Gyroscope fusion (Mahony)")
struct AttitudeFusionTests {
    @Test("a quaternion turned at a constant rate for a second has turned by the rate")
    func quaternionIntegration() {
        let q = Quaternion.identity.integrated(Vector3(radians(90), 0, 0), dt: 1)
        // 90° about +X takes the board's +Y to the reference's +Z.
        let y = q.rotate(Vector3(0, 1, 0))
        #expect(abs(y.z - 1) < 1e-12 && abs(y.y) < 1e-12)
        #expect(angleBetween(q.up, Vector3(0, 1, 0)) < 1e-9, "up is now the board's +Y")
        #expect(angleBetween(Quaternion(from: Vector3(1, 2, 3), to: up).up, Vector3(1, 2, 3)) < 1e-9)
    }

    @Test("at rest, tilted, the fused gravity is the accelerometer's and yaw starts at 0")
    func restTilted() {
        let tilt = Quaternion(axis: Vector3(1, 1, 0), angle: radians(35))
        let frames = run(Motion(attitude: { _ in tilt }).samples(seconds: 2))
        let last = frames.last!
        #expect(angleBetween(last.gravity, tilt.up) < 0.01)
        #expect(abs(last.gravity.magnitude - 1) < 1e-9)
        #expect(abs(last.attitude.yaw) < 1e-6)
        #expect(last.rotationRate!.magnitude < 1e-9 && last.quaternion != nil && !last.gyroscopeRecovering)
    }

    @Test("a turn while the board is accelerated follows the gyroscope, not the push")
    func pushedTurn() {
        // Pitch up 60° in a second, while a hand pushes 0.5 g along the board's X.
        let motion = Motion(attitude: { t in Quaternion(axis: Vector3(1, 0, 0), angle: radians(60) * min(max(t - 0.2, 0), 1)) },
                            push: { t in t >= 0.2 ? Vector3(0.5, 0, 0) : .zero })
        let frames = run(motion.samples(seconds: 1.4))
        let worst = frames.map { angleBetween($0.gravity, motion.attitude($0.t).up) }.max()!
        #expect(worst < 1, "fused gravity \(worst)° from the truth; the accelerometer alone points 27° off")
        #expect(abs(degrees(frames.last!.attitude.pitch) - 60) < 1)
    }

    @Test("yaw follows a turn about the vertical, and pitch and roll stay")
    func yawTurn() {
        let motion = Motion(attitude: { t in Quaternion(axis: up, angle: radians(90) * min(t, 1)) })
        let last = run(motion.samples(seconds: 1.5)).last!
        #expect(abs(degrees(last.attitude.yaw) - 90) < 0.5, "yaw \(degrees(last.attitude.yaw))°")
        #expect(abs(last.attitude.pitch) < 1e-6 && abs(last.attitude.roll) < 1e-6)
    }

    /// The LSM6DSO's datasheet: zero-rate level ±1 dps typical, rate noise
    /// density 3.8 mdps/√Hz, so at 104 Hz about 0.027 dps rms.
    @Test("at rest with the datasheet's offset and noise, yaw drifts under 1° a minute once the offset is learned")
    func yawDriftAtRest() {
        let motion = Motion(attitude: { _ in .identity }, bias: Vector3(radians(1), radians(-1), radians(1)),
                            noise: radians(0.0038 * (104.0 / 2).squareRoot()))
        let frames = run(motion.samples(seconds: 120))
        let minute = frames.filter { $0.t >= 60 }
        let drift = degrees(minute.last!.attitude.yaw - minute.first!.attitude.yaw)
        print("yaw drift at rest in the second minute, with 1°/s of offset: \(drift)°")
        #expect(abs(drift) <= 1, "yaw drifted \(drift)° in the second minute")
        let rate = minute.last!.rotationRate!
        #expect(rate.maxComponent < radians(0.05), "rates at rest with the offset removed: \(rate)")
    }

    @Test("a turn faster than the gyroscope's range is flagged, stays finite, and is recovered within a second of rest")
    func saturation() {
        // 720°/s about X for half a second (a full turn) on a ±500 dps part: it reads 500.
        let range = radians(500)
        let motion = Motion(attitude: { t in Quaternion(axis: Vector3(1, 0, 0), angle: radians(720) * min(t, 0.5) + radians(20) * min(t, 0.5) * 2) },
                            range: range)
        let frames = run(motion.samples(seconds: 2), range: range)
        #expect(frames.allSatisfy { $0.gravity.x.isFinite && $0.gravity.y.isFinite && $0.gravity.z.isFinite })
        #expect(frames.contains { $0.t < 0.5 && $0.gyroscopeRecovering }, "the saturated turn is flagged")
        let afterSecond = frames.filter { $0.t >= 1.5 }
        #expect(afterSecond.allSatisfy { angleBetween($0.gravity, motion.attitude($0.t).up) < 1 },
                "a second after the turn ended: \(angleBetween(afterSecond.first!.gravity, motion.attitude(1.5).up))°")
        #expect(afterSecond.allSatisfy { !$0.gyroscopeRecovering }, "the flag clears once recovered")
    }

    @Test("without a gyroscope the frame is the accelerometer's alone")
    func withoutGyroscope() {
        let input = samples(rate: 100, seconds: 1) { _ in tilted(30) }
        let frames = run(input)
        var filter = GravityFilter()
        for (frame, sample) in zip(frames, input) {
            #expect(frame.gravity == filter.process(sample.g, t: sample.t))
            #expect(frame.rotationRate == nil && frame.quaternion == nil && frame.attitude.yaw == 0)
        }
    }
}
