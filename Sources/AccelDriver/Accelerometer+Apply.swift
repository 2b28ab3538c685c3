// SPDX-License-Identifier: Apache-2.0
import AccelParts
extension Accelerometer {
    /// Changes a configured chip to `configuration` by writing only the
    /// registers whose values differ, each read back: at the same rate and
    /// mode no new phase and no turn-on time, and a FIFO left streaming
    /// keeps what it holds (its mode register is not rewritten).
    public func apply(_ configuration: DeviceConfiguration) throws {
        guard let current = self.configuration else { return try configure(configuration) }
        let before = try registerValues(for: current)
        for ((register, value), (_, old)) in zip(try registerValues(for: configuration), before) where value != old {
            try bus.writeRegister(register, value)
            let readBack = try bus.readRegister(register)
            if readBack != value {
                throw DriverError.configurationMismatch(location: bus.location, register: register, wrote: value, readBack: readBack)
            }
        }
        try adopt(configuration)
    }
}
