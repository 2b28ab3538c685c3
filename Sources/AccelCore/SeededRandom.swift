// SPDX-License-Identifier: Apache-2.0
/// SplitMix64: a tiny, fast, seedable generator, so the chip model's noise
/// is the same on every run and every machine.
public struct SeededRandom: RandomNumberGenerator, Sendable {
    private var state: UInt64
    private var spareGaussian: Double?

    public init(seed: UInt64) { state = seed }

    public mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }

    /// Standard normal deviate (Box-Muller, both halves used).
    public mutating func gaussian() -> Double {
        if let spare = spareGaussian {
            spareGaussian = nil
            return spare
        }
        let u1 = max(Double(next() >> 11) / Double(1 << 53), .leastNonzeroMagnitude)
        let u2 = Double(next() >> 11) / Double(1 << 53)
        let r = (-2 * log(u1)).squareRoot()
        spareGaussian = r * sin(2 * .pi * u2)
        return r * cos(2 * .pi * u2)
    }
}

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
