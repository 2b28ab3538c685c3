// SPDX-License-Identifier: Apache-2.0
import AccelCore
import AccelParts

// A six-axis part's side of the chip model (the LSM6DS family): its
// status bits and the gyroscope's outputs beside the accelerometer's.
extension ChipModel {
    /// A six-axis part's register: reading the accelerometer's or the
    /// gyroscope's last output byte clears XLDA or GDA; the rest is the
    /// register file.
    func readSixAxisOutput(_ register: UInt8, gyroscope: ChipProfile.Gyroscope) -> UInt8 {
        let status = profile.statusRegister
        if register == status + UInt8(profile.accelerometerOffset + 5) { registers[Int(status)] &= ~profile.statusBits.dataReady }
        if register == status + UInt8(gyroscope.dataOffset + 5) { registers[Int(status)] &= ~profile.statusBits.gyroscopeReady }
        switch access[Int(register)] {
        case .readOnly, .readWrite: return registers[Int(register)]
        case .readClears, nil: return 0
        }
    }

    /// The gyroscope's three words at `instant`: the motion's rate in dps,
    /// the offset, noise and self-test added, at the configured range's
    /// digit, clipped at full scale.
    func gyroscopeWords(at instant: UInt64, _ gyroscope: ChipProfile.Gyroscope) -> (UInt16, UInt16, UInt16) {
        var dps = motion.rotationRate(at: motionTime(instant)) * (180 / .pi) + imperfections.gyroscopeOffset
        if field(gyroscope.selfTestField) == gyroscope.selfTestCode {
            let middle = (gyroscope.selfTestLimits.lowerBound + gyroscope.selfTestLimits.upperBound) / 2
            dps += imperfections.gyroscopeSelfTestRate ?? Vector3(middle, middle, middle)
        }
        if imperfections.gyroscopeNoise > 0 {
            dps += Vector3(random.gaussian(), random.gaussian(), random.gaussian()) * imperfections.gyroscopeNoise
        }
        let code = field(gyroscope.rangeField)
        let perDigit = (gyroscope.ranges.first { $0.code == code } ?? gyroscope.ranges[0]).dpsPerDigit
        func word(_ v: Double) -> UInt16 { UInt16(bitPattern: Int16(min(max((v / perDigit).rounded(), -32768), 32767))) }
        return (word(dps.x), word(dps.y), word(dps.z))
    }
}
