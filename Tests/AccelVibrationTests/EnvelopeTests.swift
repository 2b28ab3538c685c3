// SPDX-License-Identifier: Apache-2.0
import AccelCore
import AccelDriver
import Foundation
import Testing
@testable import AccelVibration

/// A bearing with an outer-race defect at `defect` Hz ringing 2.2 kHz,
/// under a strong shaft line at 25 Hz and noise, sampled at `rate`.
func bearing(defect: Double, rate: Double, seconds: Double) -> [Double] {
    let motion = VibrationMotion(
        lines: [.init(frequency: 25, amplitude: 0.3)],
        defects: [.init(rate: defect, resonance: 2_200, amplitude: 0.5, decay: 0.0015, shaft: 25, modulation: 0.3)],
        noise: 0.05
    )
    return (0..<Int((seconds * rate).rounded())).map { motion.specificForce(at: Double($0) / rate).x }
}

@Suite("Envelope and orders")
struct EnvelopeTests {
    @Test("a defect's impacts: its rate is the envelope's strongest line, though the plain spectrum's is the shaft's")
    func defectLine() {
        let rate = 6_660.0, values = bearing(defect: 81.125, rate: rate, seconds: 1)
        let envelope = EnvelopeAnalyzer(count: values.count, rate: rate, band: 500...3_000).spectrum(values)
        let line = envelope.peaks(count: 1, in: 5...1_000).first
        #expect(abs((line?.frequency ?? 0) / 81.125 - 1) < 0.01)
        #expect(abs((spectrum(of: values, rate: rate).peaks(count: 1, in: 10...3_000).first?.frequency ?? 0) - 25) < 0.5)
    }

    @Test("MFPT's bearing from its geometry: BPFO 81.1, BPFI 118.9, BSF 63.9, FTF 10.1 Hz at 25 Hz")
    func geometry() {
        let factors = BearingFactors(elements: 8, rollerDiameter: 0.235, pitchDiameter: 1.245)
        let named = Dictionary(uniqueKeysWithValues: MachineOrders(shaft: 25, bearing: factors).frequencies.map { ($0.name, $0.frequency) })
        #expect(abs(named["bpfo"]! - 81.125) < 0.05)
        #expect(abs(named["bpfi"]! - 118.875) < 0.05)
        #expect(abs(named["bsf"]! - 63.91) < 0.1)
        #expect(abs(named["ftf"]! - 10.14) < 0.01)
        #expect(named["shaft"] == 25)
    }

    @Test("each order's harmonics are read near their frequency; one above the Nyquist frequency reads nothing")
    func orderReadings() {
        let rate = 1_000.0
        let values = signal([(30, 0.2), (60, 0.1), (90, 0.05), (245, 0.3)], rate: rate, count: 1_000)
        let orders = MachineOrders(shaft: 30.4, bearing: BearingFactors(bpfo: 8.1, bpfi: 11.9, bsf: 6.4, ftf: 0.4), harmonics: 3)
        let readings = orders.readings(in: spectrum(of: values, rate: rate), tolerance: 0.03)
        let shaft = readings[0]
        #expect(shaft.name == "shaft")
        #expect(shaft.harmonics.map { ($0?.frequency ?? 0).rounded() } == [30, 60, 90])
        #expect(abs(shaft.amplitude - 0.2) < 0.005)
        let bpfo = readings[1]
        #expect(abs((bpfo.harmonics[0]?.frequency ?? 0) - 245) < 0.5)
        #expect(bpfo.harmonics[2] == nil)  // 738 Hz, above 500
    }

    @Test("the kurtogram finds the band where the strikes ring (2.2 kHz), and the envelope there shows the defect; Gaussian noise alone reads near 0, far below the strikes")
    func kurtogram() throws {
        let rate = 6_660.0, values = bearing(defect: 81.125, rate: rate, seconds: 6_720 / rate)
        let envelope = EnvelopeAnalyzer(count: values.count, rate: rate, band: nil)
        let transform = envelope.transform(values)
        let band = envelope.band(for: [transform])
        #expect(band.contains(2_200) && band.upperBound - band.lowerBound <= rate / 4, "\(band)")
        let spectrum = envelope.spectrum(transform: transform, band: band)
        let line = try #require(spectrum.peaks(count: 1, in: 5...(band.upperBound - band.lowerBound)).first)
        #expect(abs(line.frequency / 81.125 - 1) < 0.01, "\(line)")
        let kurtogram = Kurtogram(count: values.count)
        let strikes = try #require(kurtogram.add([transform]))
        let impulsive = kurtogram.kurtosis(of: strikes, in: transform)
        var random = SeededRandom(seed: 5)
        let noise = envelope.transform((0..<values.count).map { _ in random.gaussian() })
        let worst = kurtogram.bands.map { abs(kurtogram.kurtosis(of: $0, in: noise)) }.max() ?? 0
        #expect(worst < 1 && impulsive > 2 * worst, "noise: at most \(worst); the strikes' band: \(impulsive)")
    }
}
