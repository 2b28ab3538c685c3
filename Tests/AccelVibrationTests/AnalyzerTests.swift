// SPDX-License-Identifier: Apache-2.0
import AccelCore
import AccelDriver
import AccelParts
import Foundation
import Testing
@testable import AccelVibration

/// `seconds` of `motion` read from the chip model's LIS3DH at 1,344 Hz,
/// ±16 g, one register read per sample: what the analysis gets on a board.
func chipSamples(_ motion: VibrationMotion, seconds: Double, noise: Double = 0) throws -> [Vector3] {
    let time = VirtualTime()
    var imperfections = ChipModel.Imperfections()
    imperfections.noise = noise
    let model = ChipModel(profile: .lis3dh, motion: motion, time: time, imperfections: imperfections)
    let driver = try Accelerometer(bus: model, time: time, part: .lis3dh)
    try driver.configure(DeviceConfiguration(range: 16, rate: 1_344))
    return try (0..<Int(seconds * 1_344)).map { _ in driver.acceleration(try driver.nextReading().counts) }
}

@Suite("Vibration analyzer")
struct AnalyzerTests {
    @Test("on the chip model: a 10 mm/s, 50.3 Hz line reads 50.3 Hz within half a bin, its amplitude within 1 %, 10 mm/s within 2 %")
    func lineOnTheChipModel() throws {
        let amplitude = amplitude(velocity: 10, at: 50.3)
        let samples = try chipSamples(VibrationMotion(lines: [.init(frequency: 50.3, amplitude: amplitude)]), seconds: 1.6, noise: 0.004)
        let analyzer = try VibrationAnalyzer(settings: VibrationSettings(), rate: 1_344)
        let reports = samples.enumerated().compactMap { analyzer.append($1, at: Double($0) / 1_344) }
        #expect(reports.count == 2)  // at 1 s and 1.5 s
        for report in reports {
            let line = try #require(report.peaks.first)
            #expect(abs(line.frequency - 50.3) < 0.5)
            #expect(abs(line.amplitude / amplitude - 1) < 0.01)
            #expect(abs(report.velocity / 10 - 1) < 0.02)
            #expect(abs(report.axes[2].waveform.mean - 1) < 0.02)  // gravity is not vibration
            #expect(report.velocityBand == 10...672)
            #expect(!report.clipped)
        }
        #expect(reports.map(\.start) == [0, 0.5])
    }

    @Test("a window that reached the range is flagged clipped")
    func clipped() throws {
        var settings = VibrationSettings()
        settings.fullScale = 16
        let samples = try chipSamples(VibrationMotion(lines: [.init(frequency: 40, amplitude: 20)]), seconds: 1)
        let analyzer = try VibrationAnalyzer(settings: settings, rate: 1_344)
        let report = try #require(samples.enumerated().compactMap { analyzer.append($1, at: Double($0) / 1_344) }.first)
        #expect(report.clipped)
    }

    @Test("the average's span is the windows as cut (6,720 samples at 6,660 Hz, a length KissFFT transforms fast), not as asked")
    func averageSpan() throws {
        let analyzer = try VibrationAnalyzer(settings: VibrationSettings(), rate: 6_660)
        var reports: [VibrationReport] = []
        for i in 0..<Int(3 * 6_660) {
            let t = Double(i) / 6_660
            if let report = analyzer.append(Vector3(0.1 * sin(2 * .pi * 50 * t), 0, 1), at: t) { reports.append(report) }
        }
        let last = try #require(reports.last)
        #expect(analyzer.count == 6_720 && last.averaged == reports.count)
        #expect(abs(last.averageSpan - Double(6_720 + (reports.count - 1) * analyzer.hop) / 6_660) < 1e-9, "\(last.averageSpan) s")
        #expect(last.averageSpan > 1.009 + Double(reports.count - 1) * 0.5, "more than the nominal \(1 + Double(reports.count - 1) * 0.5) s")
    }

    @Test("a machine that starts and stops: one running and one off transition, each within a quarter second of the truth")
    func startStop() throws {
        var settings = VibrationSettings()
        settings.state.hold = 2
        let motion = VibrationMotion(lines: [.init(frequency: 24, amplitude: 0.2)], noise: 0.02,
                                     schedule: .init(runs: [3..<9], ramp: 0.2))
        let samples = try chipSamples(motion, seconds: 12)
        let analyzer = try VibrationAnalyzer(settings: settings, rate: 1_344)
        let transitions = samples.enumerated().flatMap { analyzer.append($1, at: Double($0) / 1_344)?.transitions ?? [] }
        #expect(transitions.map(\.to) == [.running, .off])
        #expect(transitions.count == 2 && abs(transitions[0].time - 3) <= 0.25 && abs(transitions[1].time - 9) <= 0.25, "\(transitions)")
    }

    @Test("the shaft estimated from the spectrum finds its orders' lines")
    func estimatedShaft() throws {
        var settings = VibrationSettings()
        settings.shaft = .estimated(15...60)
        settings.bearing = BearingFactors(bpfo: 3.2, bpfi: 4.8, bsf: 2.1, ftf: 0.4)
        let motion = VibrationMotion(lines: [.init(frequency: 29.3, amplitude: 0.3), .init(frequency: 29.3 * 4.8, amplitude: 0.05)])
        let analyzer = try VibrationAnalyzer(settings: settings, rate: 1_344)
        let samples = try chipSamples(motion, seconds: 1)
        let report = try #require(samples.enumerated().compactMap { analyzer.append($1, at: Double($0) / 1_344) }.first)
        #expect(abs((report.shaft ?? 0) - 29.3) < 0.2)
        let bpfi = try #require(report.orders.first { $0.name == "bpfi" })
        #expect(abs(bpfi.amplitude / 0.05 - 1) < 0.03)
    }
}
