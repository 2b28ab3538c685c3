// SPDX-License-Identifier: Apache-2.0
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Changes a recording's rate to a part's, as the part's own anti-aliasing
/// filter and sampling would: a windowed-sinc low-pass at 40 % of the lower
/// rate (Blackman window, 24 zero crossings each side: below −70 dB from
/// 50 % of it), evaluated at each output instant. Taking every n-th sample
/// instead folds what lies above the new Nyquist frequency (a bearing's
/// resonance at 48 kHz) into the band.
///
/// Written here rather than taken from libsamplerate: it is 40 lines, runs
/// only offline (replay, benchmarks, tests), and keeps the C libraries to
/// the ones the project already takes from Debian.
public enum Resampler {
    public static let zeroCrossings = 24.0
    public static let cutoffFraction = 0.4

    /// `values` taken at `rate`, as if sampled at `newRate`; the first
    /// output is at the first input's instant.
    public static func resample(_ values: [Double], from rate: Double, to newRate: Double) -> [Double] {
        guard !values.isEmpty, rate != newRate else { return values }
        let lowPass = LowPass(rate: newRate, inputRate: rate)
        // Up to the last input's instant, so a trace keeps its span.
        let count = Int((Double(values.count - 1) / rate * newRate).rounded(.down)) + 1
        return (0..<count).map { j in lowPass.reading(at: Double(j) / newRate * rate, count: values.count) { values[$0] } }
    }

    /// The low-pass, for a signal read at any instant between its samples
    /// (`resample`'s output instants, or a chip on a clock of its own
    /// reading a faster recording): the kernel tabulated once, so each reading is a weighted mean of
    /// the samples within reach, with no trigonometry.
    public struct LowPass: Sendable {
        /// Input samples either side of a reading.
        let span: Int
        /// The kernel's reach, in input samples.
        let reach: Double
        /// The kernel at |t| from 0 to the reach, in `table.count - 1` steps.
        private let table: [Double]

        /// A low-pass at `cutoffFraction` of `rate` for samples taken at `inputRate`.
        public init(rate: Double, inputRate: Double) {
            let cutoff = cutoffFraction * min(rate, inputRate)
            let seconds = zeroCrossings / (2 * cutoff)
            reach = seconds * inputRate
            span = Int(reach.rounded(.up))
            // 1,024 steps a zero crossing: linear interpolation in the table
            // is then within 1e-6 of the kernel, below -100 dB.
            let steps = Int(zeroCrossings) * 1024
            table = (0...steps).map { kernel(seconds * Double($0) / Double(steps), cutoff: cutoff, reach: seconds) }
        }

        /// The filtered signal at `position`, in input samples from the
        /// first (fractions between two), of the values `value(n)` gives
        /// for n in `0..<count`. Near the ends the kernel is cut off and
        /// its weights renormalised, as `resample` does.
        @inline(__always)
        public func reading<Value: LowPassValue>(at position: Double, count: Int, _ value: (Int) -> Value) -> Value {
            let centre = Int(position.rounded(.down))
            var sum = Value.zero, weights = 0.0
            let steps = Double(table.count - 1)
            for n in max(0, centre - span)...min(count - 1, centre + span) {
                let distance = abs(position - Double(n)) / reach * steps
                guard distance < steps else { continue }
                let low = Int(distance), fraction = distance - Double(low)
                let w = table[low] + (table[min(low + 1, table.count - 1)] - table[low]) * fraction
                sum = sum + value(n) * w
                weights += w
            }
            return weights != 0 ? sum * (1 / weights) : Value.zero
        }
    }

    /// The low-pass's impulse response at `t` seconds: sinc × Blackman.
    static func kernel(_ t: Double, cutoff: Double, reach: Double) -> Double {
        let x = 2 * cutoff * t
        let sinc = abs(x) < 1e-12 ? 1 : sin(.pi * x) / (.pi * x)
        let phase = .pi * (t / reach + 1)  // 0 ... 2π across the kernel
        return sinc * (0.42 - 0.5 * cos(phase) + 0.08 * cos(2 * phase))
    }
}

/// What `Resampler.LowPass` can filter: scalars and vectors.
public protocol LowPassValue {
    static var zero: Self { get }
    static func + (lhs: Self, rhs: Self) -> Self
    static func * (lhs: Self, rhs: Double) -> Self
}

extension Double: LowPassValue {}
