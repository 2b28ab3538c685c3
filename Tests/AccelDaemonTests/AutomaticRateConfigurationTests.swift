// SPDX-License-Identifier: Apache-2.0
import AccelConfiguration
import AccelDaemon
import AccelCore
import AccelDriver
import AccelMotion
import Testing
import TestSupport

@Suite("rate = auto in the configuration")
struct AutomaticRateConfigurationTests {
    @Test("no rate is auto: 104 Hz on the LSM6DSO, 100 on the LIS3DH and while the part is unknown")
    func unset() throws {
        var settings = DeviceSettings()
        #expect(settings.rate == nil && settings.configuration.rate == 100)
        settings.part = "LSM6DSO"
        #expect(settings.configuration.rate == 104 && settings.problem(on: .lsm6dso) == nil)
        settings.part = "LIS3DH"
        #expect(settings.configuration.rate == 100)
    }

    @Test("rate = auto parses as auto; an explicit 100 on the LSM6DSO is refused with its rates")
    func parsed() throws {
        let auto = try Configuration(parsing: "[device]\npart = LSM6DSO\nrate = auto\n")
        #expect(auto.device.rate == nil && auto.device.configuration.rate == 104)
        let error = #expect(throws: ConfigurationError.self) { try Configuration(parsing: "[device]\npart = LSM6DSO\nrate = 100\n") }
        #expect(error?.line == 3)
        #expect(error?.message.contains("100 Hz is not available on the LSM6DSO") == true && error?.message.contains("26, 52, 104") == true,
                "\(error?.message ?? "")")
    }

    @Test("with no part named, the sampler takes the rate of the part WHO_AM_I names")
    func identifiedPart() throws {
        let time = VirtualTime()
        let model = ChipModel(profile: .lsm6dso, time: time)
        let sampler = Sampler(connect: { try Accelerometer(bus: model, time: time, part: .lsm6dso) },
                              configuration: DeviceSettings().configuration, settings: MotionSettings(), time: time)
        sampler.automaticRate = true
        try sampler.open()
        #expect(sampler.configuration.rate == 104 && sampler.driver?.configuration?.rate == 104)
    }
}
