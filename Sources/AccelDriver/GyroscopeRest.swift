// SPDX-License-Identifier: Apache-2.0
import AccelCore
import AccelParts

/// The gyroscope's rate at rest over a short window: its mean is the
/// zero-rate offset (what `accelctl probe` judges, acceld warns about and
/// `accelctl calibrate` stores), its spread says whether the board moved.
public struct GyroscopeRest: Sendable, Equatable {
    /// Mean rate per chip axis, dps: the offset, if the board was still.
    public let mean: Vector3
    /// Standard deviation per chip axis, dps.
    public let spread: Vector3
    public let samples: Int
    /// Above this spread the board was turning: the noise at rest is far
    /// below it (see `stillSpread`).
    public let stillSpread: Double
    /// The datasheet's typical zero-rate level, ±dps.
    public let typical: Double

    /// The bound a healthy part stays within: ST's "typical" zero-rate
    /// level is about one standard deviation of the parts made (the
    /// datasheets' terminology: "the standard deviation of the range of
    /// zero-rate levels of a group of sensors"), so three times it holds
    /// all but a few in a thousand, with room for the shift soldering
    /// stress adds. Beyond it the part is damaged or badly stressed.
    public var bound: Double { 3 * typical }

    public var moved: Bool { spread.maxComponent > stillSpread }
    public var within: Bool { mean.maxComponent <= bound }

    /// "gyroscope offset at rest 0.52, -0.31, 0.12 dps: within the datasheet's ±3 dps ..."
    public var verdict: String {
        let figures = [mean.x, mean.y, mean.z].map { fixed($0, 2) }.joined(separator: ", ")
        let limit = "the datasheet's ±\(fixed(bound, 0)) dps (3 × its typical zero-rate level, ±\(fixed(typical, 0)) dps)"
        if moved {
            return "gyroscope offset at rest \(figures) dps: not judged, the board moved (spread up to \(fixed(spread.maxComponent, 2)) dps): keep it still and measure again"
        }
        return "gyroscope offset at rest \(figures) dps: \(within ? "within" : "beyond") \(limit)"
    }

    public init(rates: [Vector3], gyroscope: ChipProfile.Gyroscope, rate: Int) {
        let n = Double(max(rates.count, 1))
        let mean = rates.reduce(Vector3.zero, +) / n
        let variance = rates.reduce(Vector3.zero) { sum, r in
            let d = r - mean
            return sum + Vector3(d.x * d.x, d.y * d.y, d.z * d.z)
        } / n
        self.mean = mean
        self.spread = Vector3(variance.x.squareRoot(), variance.y.squareRoot(), variance.z.squareRoot())
        self.samples = rates.count
        self.typical = gyroscope.zeroRateLevel
        // The noise at rest is the noise density over ODR/2 (a few
        // hundredths of a dps at 104 Hz); a hand holding the board, or a
        // slow turn, spreads the rates by a dps and more. Five times the
        // noise, and never under half a dps: one digit is 0.07 dps.
        self.stillSpread = max(0.5, 5 * gyroscope.noiseDensity * (Double(rate) / 2).squareRoot())
    }
}

extension Accelerometer {
    /// Reads the gyroscope for `seconds` at the configured rate (the chip
    /// must be configured) and returns its rates at rest, in the chip's axes.
    public func gyroscopeRest(seconds: Double = 0.5) throws -> GyroscopeRest? {
        guard let gyroscope = profile.gyroscope, let configuration else { return nil }
        let count = max(Int((seconds * Double(configuration.rate)).rounded()), 2)
        var rates: [Vector3] = []
        rates.reserveCapacity(count)
        for _ in 0..<count {
            rates.append((try nextReading().rotation ?? Counts(0, 0, 0)).vector * gyroscope.ranges[0].dpsPerDigit)
        }
        return GyroscopeRest(rates: rates, gyroscope: gyroscope, rate: configuration.rate)
    }
}
