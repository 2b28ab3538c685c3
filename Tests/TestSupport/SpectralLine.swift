// SPDX-License-Identifier: Apache-2.0
import AccelCore
import AccelDriver
import Foundation

/// A trace at `rate` with `lines` (Hz, g) on x, 1 g on z.
public func sineTrace(rate: Double, seconds: Double, lines: [(Double, Double)]) -> Trace {
    let times = (0..<Int(seconds * rate)).map { Double($0) / rate }
    let samples = times.map { t in Vector3(lines.reduce(0) { $0 + $1.1 * sin(2 * .pi * $1.0 * t) }, 0, 1) }
    return Trace(times: times, samples: samples)
}

/// A line's amplitude in `values` taken at `rate`: a projection through a
/// Hann window, whose side lobes keep a strong line elsewhere from leaking
/// into the one measured.
public func lineAmplitude(_ values: [Double], rate: Double, hertz: Double) -> Double {
    var s = 0.0, c = 0.0, weights = 0.0
    for (i, value) in values.enumerated() {
        let w = 0.5 - 0.5 * cos(2 * .pi * Double(i) / Double(values.count))
        s += value * w * sin(2 * .pi * hertz * Double(i) / rate)
        c += value * w * cos(2 * .pi * hertz * Double(i) / rate)
        weights += w
    }
    return 2 * (s * s + c * c).squareRoot() / weights
}

/// The line at `hertz` and the strongest other line within 200 Hz of it
/// (beyond the Hann window's main lobe), in dB below it.
public func lineAndNeighbours(_ values: [Double], rate: Double, hertz: Double) -> (amplitude: Double, strongestNearby: Double) {
    let amplitude = lineAmplitude(values, rate: rate, hertz: hertz)
    let resolution = rate / Double(values.count)
    let nearby = stride(from: hertz - 200, through: hertz + 200, by: resolution)
        .filter { abs($0 - hertz) > 4 * resolution }
        .map { lineAmplitude(values, rate: rate, hertz: $0) }.max() ?? 0
    return (amplitude, 20 * log10(nearby / amplitude))
}
