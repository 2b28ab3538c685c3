// SPDX-License-Identifier: Apache-2.0
import AccelDriver
import AccelParts
import AccelProtocol

extension DeviceInfo {
    init(chip: String, location: String, configuration: DeviceConfiguration, profile: ChipProfile?, state: String) {
        self.init(chip: chip, location: location, range: configuration.range, rate: configuration.rate,
                  mode: configuration.mode ?? "unknown", resolution: 0, state: state)
        update(configuration, profile: profile)
    }

    /// Range, rate, mode and FIFO as now configured.
    mutating func update(_ configuration: DeviceConfiguration, profile: ChipProfile?) {
        range = configuration.range
        rate = configuration.rate
        let mode = profile?.mode(named: configuration.mode)
        self.mode = mode?.name ?? configuration.mode ?? "unknown"
        resolution = mode?.resolutionBits ?? 0
        fifo = profile?.fifo == nil ? nil : configuration.fifoWatermark
        // Without a profile (a device read through IIO) the daemon said it.
        if let profile { gyroscope = profile.gyroscope?.ranges[0].dps }
    }
}
