// SPDX-License-Identifier: Apache-2.0
import AccelCore
import AccelDriver
import AccelParts

/// What a six-axis part reports for a given specific force and rotation
/// rate, as the chip model makes it (ChipModel.convert and
/// ChipModel+SixAxis's gyroscopeWords): the gyroscope's zero-rate offset
/// and seeded rate noise added, each value rounded to the range's digit
/// and clipped at the 16-bit output's ends. Values are read back from the
/// digits, in g and rad/s. The acceleration gets no offset or noise: the
/// fusion's input is judged for the digits and the gyroscope's faults.
public struct SixAxisQuantiser: Sendable {
    public let gPerDigit: Double
    public let dpsPerDigit: Double
    /// Nominal full scale of the gyroscope's range, rad/s (the pipeline's
    /// `gyroscopeRange`, as the driver gives it).
    public var rotationRange: Double
    /// Zero-rate offset, dps per axis.
    public var offset: Vector3
    /// Rate noise per sample, dps rms.
    public var noise: Double
    /// Clipped at the outputs' ends (false: the digit alone).
    public var clips = true
    private var random: SeededRandom

    /// `profile`'s ranges `fullScale` (g) and `dps`; the offset is the
    /// datasheet's typical zero-rate level on every axis with alternating
    /// signs, the noise its density over the band up to half of `rate`.
    public init(profile: ChipProfile = .lsm6dso, fullScale: Int = 2, dps: Int = 250, rate: Int, seed: UInt64 = 0x1C) {
        let gyroscope = profile.gyroscope!
        gPerDigit = profile.range(fullScale: fullScale)!.gPerDigit
        let range = gyroscope.ranges.first { $0.dps == dps }!
        dpsPerDigit = range.dpsPerDigit
        rotationRange = Double(dps) * .pi / 180
        let level = gyroscope.zeroRateLevel
        offset = Vector3(level, -level, level)
        noise = gyroscope.noiseDensity * (Double(rate) / 2).squareRoot()
        random = SeededRandom(seed: seed)
    }

    /// The accelerometer's reading of `g`.
    public func acceleration(_ g: Vector3) -> Vector3 {
        Vector3(digits(g.x / gPerDigit), digits(g.y / gPerDigit), digits(g.z / gPerDigit)) * gPerDigit
    }

    /// The gyroscope's reading of `rate` (rad/s), offset and noise included.
    public mutating func rotationRate(_ rate: Vector3) -> Vector3 {
        var dps = rate * (180 / .pi) + offset
        if noise > 0 { dps += Vector3(random.gaussian(), random.gaussian(), random.gaussian()) * noise }
        let read = Vector3(digits(dps.x / dpsPerDigit), digits(dps.y / dpsPerDigit), digits(dps.z / dpsPerDigit))
        return read * (dpsPerDigit * .pi / 180)
    }

    /// Rounded to a whole digit, clipped to a signed 16-bit output.
    func digits(_ value: Double) -> Double { clips ? min(max(value.rounded(), -32768), 32767) : value.rounded() }
}
