// SPDX-License-Identifier: Apache-2.0
import Testing
import AccelCore
import AccelDriver
import AccelParts

@Suite("The automatic rate")
struct AutomaticRateTests {
    @Test("the six-axis parts run at 104 Hz, every three-axis part at 100")
    func nearestHundred() {
        for part in ChipProfile.supported {
            let expected = part.gyroscope == nil ? 100 : 104
            #expect(part.automaticRate() == expected, "\(part.name)")
        }
    }

    @Test("the automatic rate is one of the mode's own, in every mode")
    func ownRate() {
        for part in ChipProfile.supported {
            for mode in part.modes {
                let rate = part.automaticRate(mode: mode.name)
                #expect(rate.map { r in mode.rates.contains { $0.hertz == r } } == true, "\(part.name) \(mode.name)")
            }
        }
        #expect(ChipProfile.lis3dh.automaticRate(mode: "no-such-mode") == nil)
    }

    @Test("the tools' default configuration takes it")
    func toolsDefault() throws {
        let time = VirtualTime()
        let model = ChipModel(profile: .lsm6dso, time: time)
        let driver = try Accelerometer(bus: model, time: time, part: .lsm6dso)
        #expect(driver.defaultConfiguration().rate == 104)
    }
}
