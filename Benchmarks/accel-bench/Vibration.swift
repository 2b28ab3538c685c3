// SPDX-License-Identifier: Apache-2.0
import AccelCore
import AccelDriver
import AccelParts
import AccelEvaluation
import AccelVibration
import ArgumentParser
#if canImport(Glibc)
import Glibc
#endif

/// The vibration analysis's targets (issue 37), printed: lines and velocity
/// on synthetic signals, the real recordings' bearing defects and motor
/// line, and the analysis's speed.
struct Vibration: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "The vibration analysis: synthetic lines and velocity, the recordings' bearing defects and motor line (../shared/data/vibration), and throughput.")

    @Option(help: ArgumentHelp("The development recordings.", valueName: "dir"))
    var data = "../shared/data"

    @Option(help: "Seconds of samples per throughput run.")
    var seconds = 60.0

    @Option(help: "Throughput runs; the median is reported.")
    var runs = 5

    func run() throws {
        try lines()
        try velocity()
        try recordings()
        try throughput()
    }

    /// Lines between bins, through acceld replay on the chip model's
    /// LIS3DH at 1,344 Hz (±16 g): each line's first window.
    private func lines() throws {
        print("| line | found | error (bins) | amplitude error |")
        print("|---|---|---|---|")
        var worstBins = 0.0, worstAmplitude = 0.0
        for frequency in [23.37, 50.5, 121.59, 333.25, 600.8] {
            let motion = VibrationMotion(lines: [.init(frequency: frequency, amplitude: 0.3)])
            let window = try VibrationEvaluation.firstWindow(motion, "[device]\npart = LIS3DH\nrate = 1344\nrange = 16\n", seconds: 1.3)
            let line = window.peaks[0]
            let bins = (line[0] - frequency) * window.duration, amplitude = line[1] / 0.3 - 1
            worstBins = max(worstBins, abs(bins))
            worstAmplitude = max(worstAmplitude, abs(amplitude))
            print("| \(fixed(frequency, 2)) Hz, 0.3 g | \(fixed(line[0], 2)) Hz, \(fixed(line[1], 4)) g | \(fixed(bins, 3)) | \(fixed(amplitude * 100, 2)) % |")
        }
        print("lines through acceld replay (LIS3DH, 1,344 Hz, ±16 g): worst \(fixed(worstBins, 3)) bin, \(fixed(worstAmplitude * 100, 2)) % in amplitude; targets ½ bin, 1 %\n")
    }

    /// Velocity RMS through acceld replay on an LSM6DSO at 6,660 Hz (±16 g):
    /// each line's acceleration amplitude for its velocity.
    private func velocity() throws {
        func reading(_ lines: [(hertz: Double, mmps: Double)]) throws -> Double {
            let motion = VibrationMotion(lines: lines.map { .init(frequency: $0.hertz, amplitude: $0.mmps * 2.0.squareRoot() * 2 * Double.pi * $0.hertz / 9_806.65) })
            return try VibrationEvaluation.firstWindow(motion, "[device]\npart = LSM6DSO\nrate = 6660\nrange = 16\n", playback: TracePlayback(stillGyroscope: true), seconds: 1.3).velocity
        }
        let single = try reading([(50, 10)]), mixture = try reading([(29.95, 6), (148.3, 8)])
        print("velocity RMS through acceld replay (LSM6DSO, 6,660 Hz): 10 mm/s at 50 Hz reads \(fixed(single, 3)) mm/s (\(fixed((single / 10 - 1) * 100, 2)) %); 6 mm/s at 29.95 Hz with 8 mm/s at 148.3 Hz (10 mm/s) reads \(fixed(mixture, 3)) (\(fixed((mixture / 10 - 1) * 100, 2)) %); target within 2 %\n")
    }

    private func recordings() throws {
        print(try VibrationEvaluation.recordingsTable(data: data) + "\n")
    }

    /// The analysis alone at 6,660 Hz: 1 s windows, 50 % overlap, every
    /// figure, the envelope and bearing orders included.
    private func throughput() throws {
        let rate = 6_660.0
        var settings = VibrationSettings()
        settings.shaft = .fixed(29.95)
        settings.bearing = VibrationEvaluation.mfptBearing
        let motion = VibrationMotion(lines: VibrationMotion.harmonics(of: .init(frequency: 29.95, amplitude: 0.2), count: 3),
                                     defects: [.init(rate: 29.95 * 3.05, resonance: 2_000, amplitude: 0.3, shaft: 29.95, modulation: 0.5)],
                                     noise: 0.02)
        let samples = (0..<Int(seconds * rate)).map { motion.specificForce(at: Double($0) / rate) }
        var speeds: [Double] = []
        for _ in 0..<runs {
            let analyzer = try VibrationAnalyzer(settings: settings, rate: rate)
            var reports = 0
            let start = now()
            for (i, sample) in samples.enumerated() where analyzer.append(sample, at: Double(i) / rate) != nil { reports += 1 }
            speeds.append(seconds / (now() - start))
            if reports == 0 { print("impossible") }
        }
        print("analysis throughput at 6,660 Hz (three axes, 1 s windows, 50 % overlap, envelope and orders): \(fixed(median(speeds), 0))× real time (median of \(runs) runs of \(fixed(seconds, 0)) s); target 50×")
    }
}
