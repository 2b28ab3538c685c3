// SPDX-License-Identifier: Apache-2.0
import AccelCore
import AccelDriver
import AccelParts
import AccelTools

extension ProbeCommand {
    /// For each six-axis part found: its gyroscope's offset at rest over
    /// half a second, against the datasheet. The probe's exit status stays
    /// about finding the chip; a part beyond the bound is named here.
    func judgeGyroscopes(_ findings: [ProbeFinding], model: ChipModel?, time: TimeSource) {
        for finding in findings {
            guard let id = finding.whoAmI else { continue }
            let candidates = ChipProfile.candidates(whoAmI: id)
            let named = model?.profile ?? chip.part.flatMap(ChipProfile.named)
            guard let profile = named ?? (candidates.count == 1 ? candidates[0] : nil), profile.whoAmI == id,
                  profile.gyroscope != nil else { continue }
            let place = "  \(finding.bus) \(hex(finding.address))"
            do {
                let bus: RegisterBus
                if let model { bus = model } else {
                    bus = try I2CBus(path: finding.bus, address: finding.address, force: chip.force, allowByteReads: chip.allowByteReads)
                }
                let driver = try Accelerometer(bus: bus, time: time, part: profile)
                try driver.configure(driver.defaultConfiguration())
                defer { try? driver.powerDown() }
                if let rest = try driver.gyroscopeRest(seconds: 0.5) { print("\(place): \(rest.verdict)") }
            } catch {
                print("\(place): the gyroscope's offset at rest was not measured: \(error)")
            }
        }
    }
}
