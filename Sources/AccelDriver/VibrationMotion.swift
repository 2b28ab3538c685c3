// SPDX-License-Identifier: Apache-2.0
import AccelCore
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A machine's vibration for the chip model: a board bolted to it, gravity
/// on +z, and on top the lines a running machine makes (sines and their
/// harmonics), a bearing's defect (impacts that ring a resonance, stronger
/// as the loaded zone passes: amplitude-modulated at the shaft's rate),
/// broadband noise, and the machine starting and stopping.
public final class VibrationMotion: MotionSource {
    /// A line: `amplitude` g (peak) at `frequency` Hz along `direction`.
    public struct Line: Sendable {
        public var frequency: Double
        public var amplitude: Double
        public var direction: Vector3
        public var phase: Double

        public init(frequency: Double, amplitude: Double, direction: Vector3 = Vector3(1, 0, 0), phase: Double = 0) {
            self.frequency = frequency
            self.amplitude = amplitude
            self.direction = direction
            self.phase = phase
        }
    }

    /// A bearing's defect: an impact every 1/`rate` s ringing `resonance` Hz
    /// with `amplitude` g, decaying by e in `decay` s, its strength
    /// modulated by `modulation` (0 ... 1) at `shaft` Hz.
    public struct Defect: Sendable {
        public var rate: Double
        public var resonance: Double
        public var amplitude: Double
        public var decay: Double
        public var shaft: Double
        public var modulation: Double
        public var direction: Vector3

        public init(rate: Double, resonance: Double, amplitude: Double, decay: Double = 0.001,
                    shaft: Double = 0, modulation: Double = 0, direction: Vector3 = Vector3(1, 0, 0)) {
            self.rate = rate
            self.resonance = resonance
            self.amplitude = amplitude
            self.decay = decay
            self.shaft = shaft
            self.modulation = modulation
            self.direction = direction
        }
    }

    /// When the machine runs: [start, stop) intervals in seconds, each
    /// ramping up and down over `ramp` s, repeating every `period` s when
    /// one is given. Empty: always.
    public struct Schedule: Sendable {
        public var runs: [Range<Double>]
        public var ramp: Double
        public var period: Double?
        public init(runs: [Range<Double>] = [], ramp: Double = 0.5, period: Double? = nil) {
            self.runs = runs
            self.ramp = ramp
            self.period = period
        }

        /// 0 (stopped) ... 1 (running) at `t`.
        func level(at time: Double) -> Double {
            guard !runs.isEmpty else { return 1 }
            let t = period.map { time.truncatingRemainder(dividingBy: $0) } ?? time
            return runs.map { run in
                let up = ramp > 0 ? (t - run.lowerBound) / ramp : (t >= run.lowerBound ? 1 : 0)
                let down = ramp > 0 ? (run.upperBound - t) / ramp : (t < run.upperBound ? 1 : 0)
                return max(0, min(1, up, down))
            }.max() ?? 0
        }
    }

    public let name: String
    public let duration: Double
    public var lines: [Line]
    public var defects: [Defect]
    /// Broadband noise, g RMS per axis, while running.
    public var noise: Double
    public var schedule: Schedule
    private let seed: UInt64

    public init(name: String = "vibration", duration: Double = .infinity, lines: [Line] = [], defects: [Defect] = [],
                noise: Double = 0, schedule: Schedule = Schedule(), seed: UInt64 = 0x51B) {
        self.name = name
        self.duration = duration
        self.lines = lines
        self.defects = defects
        self.noise = noise
        self.schedule = schedule
        self.seed = seed
    }

    /// The built-in machine (`--simulate machine`): a motor at 29.95 Hz
    /// (1,797 rpm) with a little unbalance and its harmonics, a 6205-size
    /// ball bearing (9 balls of 7.94 mm on a 39.04 mm pitch circle) with an
    /// outer-race defect ringing 2.2 kHz at its BPFO (107.4 Hz), and noise;
    /// it runs 30 s, stops for 10 s, and starts again.
    public static func machine() -> VibrationMotion {
        let shaft = 29.95, bpfo = 4.5 * shaft * (1 - 7.94 / 39.04)
        let unbalance = harmonics(of: Line(frequency: shaft, amplitude: 0.12, direction: Vector3(1, 0, 0)), count: 3, falloff: 0.4)
        let quadrature = unbalance.map { line -> Line in
            var line = line
            line.direction = Vector3(0, 1, 0)
            line.phase = .pi / 2
            return line
        }
        return VibrationMotion(
            name: "machine", lines: unbalance + quadrature,
            defects: [Defect(rate: bpfo, resonance: 2_200, amplitude: 0.3, decay: 0.001, shaft: shaft, modulation: 0.4, direction: Vector3(1, 0, 0.5))],
            noise: 0.01, schedule: Schedule(runs: [2..<32], ramp: 1, period: 40))
    }

    /// A line and its harmonics (2×, 3×, ...), each `falloff` of the last.
    public static func harmonics(of line: Line, count: Int, falloff: Double = 0.5) -> [Line] {
        (0..<count).map { h in
            var harmonic = line
            harmonic.frequency = line.frequency * Double(h + 1)
            harmonic.amplitude = line.amplitude * pow(falloff, Double(h))
            return harmonic
        }
    }

    public func specificForce(at t: Double) -> Vector3 {
        let level = schedule.level(at: t)
        var force = Vector3(0, 0, 1)
        guard level > 0 else { return force }
        for line in lines {
            force += line.direction * (level * line.amplitude * sin(2 * .pi * line.frequency * t + line.phase))
        }
        for defect in defects { force += defect.direction * (level * ringing(defect, at: t)) }
        if noise > 0 { force += noiseVector(at: t) * (level * noise) }
        return force
    }

    /// The sum of the rings of the impacts before `t` still audible (five
    /// decay times).
    private func ringing(_ defect: Defect, at t: Double) -> Double {
        let period = 1 / defect.rate
        var total = 0.0
        var k = (t / period).rounded(.down)
        while k >= 0 {
            let impact = k * period
            let age = t - impact
            if age > 5 * defect.decay { break }
            let strength = 1 - defect.modulation * 0.5 * (1 - cos(2 * .pi * defect.shaft * impact))
            total += strength * exp(-age / defect.decay) * sin(2 * .pi * defect.resonance * age)
            k -= 1
        }
        return defect.amplitude * total
    }

    /// Gaussian noise that is a function of time alone (the model may ask
    /// for the same instant twice): a generator seeded by the microsecond.
    private func noiseVector(at t: Double) -> Vector3 {
        var random = SeededRandom(seed: seed &+ UInt64(max(0, (t * 1e6).rounded())))
        return Vector3(random.gaussian(), random.gaussian(), random.gaussian())
    }
}
