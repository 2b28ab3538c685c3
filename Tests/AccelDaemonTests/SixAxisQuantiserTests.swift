// SPDX-License-Identifier: Apache-2.0
import AccelCore
import AccelEvaluation
import Testing

/// The LSM6DSO's readings that FusionEvaluation feeds the fusion: the
/// datasheet's digits, the 16-bit outputs' ends, the zero-rate offset and noise.
@Suite("An LSM6DSO's readings for the fusion's figures")
struct SixAxisQuantiserTests {
    @Test("the accelerometer reads in 0.061 mg digits and clips at ±2 g")
    func acceleration() {
        let lsm6dso = SixAxisQuantiser(rate: 104)
        let read = lsm6dso.acceleration(Vector3(0.5, -1.00004, 2.5))
        #expect(abs(read.x - 8197 * 0.000061) < 1e-12)
        #expect(abs(read.y + 16394 * 0.000061) < 1e-12)
        #expect(abs(read.z - 32767 * 0.000061) < 1e-12, "2.5 g reads as the full scale, 1.9988 g")
    }

    @Test("the gyroscope reads in 8.75 mdps digits at ±250 dps and clips at 286.7 dps")
    func rotationDigits() {
        var lsm6dso = SixAxisQuantiser(rate: 104)
        lsm6dso.offset = .zero
        lsm6dso.noise = 0
        let degrees = lsm6dso.rotationRate(Vector3(10.004, -300, 0) * (.pi / 180)) * (180 / .pi)
        #expect(abs(degrees.x - 1143 * 0.00875) < 1e-9)
        #expect(abs(degrees.y + 32768 * 0.00875) < 1e-9)
        #expect(degrees.z == 0)
        #expect(abs(lsm6dso.rotationRange - 250 * .pi / 180) < 1e-12)
    }

    @Test("at rest the gyroscope reads the datasheet's offset with its noise, the same on every run")
    func offsetAndNoise() {
        var first = SixAxisQuantiser(rate: 104), second = SixAxisQuantiser(rate: 104)
        var sum = Vector3.zero, squares = 0.0
        let count = 20_000
        for _ in 0..<count {
            let dps = first.rotationRate(.zero) * (180 / .pi)
            #expect(dps == second.rotationRate(.zero) * (180 / .pi))
            sum += dps
            squares += (dps.x - 1) * (dps.x - 1)
        }
        let mean = sum / Double(count)
        #expect(abs(mean.x - 1) < 0.002 && abs(mean.y + 1) < 0.002 && abs(mean.z - 1) < 0.002)
        // 3.8 mdps/√Hz over 52 Hz: 0.027 dps rms.
        #expect(abs((squares / Double(count)).squareRoot() - 0.0038 * 52.0.squareRoot()) < 0.002)
    }
}
