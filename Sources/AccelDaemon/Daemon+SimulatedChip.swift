// SPDX-License-Identifier: Apache-2.0
import AccelCore
import AccelDriver

extension Daemon {
    /// The chip model's flaws under `--simulate`, so that clients see a
    /// chip as a real one reads: noise, an offset, a clock 1 % off, and
    /// for a six-axis part a gyroscope with an offset within the LSM6DSO's
    /// typical ±1 dps and its noise at 104 Hz (the fusion learns the first).
    static var simulatedImperfections: ChipModel.Imperfections {
        var imperfections = ChipModel.Imperfections()
        imperfections.noise = 0.004
        imperfections.offset = Vector3(0.012, -0.008, 0.018)
        imperfections.rateError = 0.01
        imperfections.gyroscopeOffset = Vector3(0.6, -0.4, 0.3)
        imperfections.gyroscopeNoise = 0.03
        return imperfections
    }
}
