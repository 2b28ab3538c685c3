// SPDX-License-Identifier: Apache-2.0
/// The kernel driver bound to an I2C address (what makes i2c-dev answer
/// EBUSY there), and the IIO device it made, if any: so that a refusal
/// can say which driver it is and how to go on.
public struct KernelOwner: Sendable, Equatable {
    /// The I2C client's name in sysfs (`1-0018`).
    public let client: String
    public let driver: String?
    public let iio: IIODevice?

    public init?(bus: Int, address: UInt8, i2cDevices: String = "/sys/bus/i2c/devices", iioPaths: IIOPaths = IIOPaths()) {
        let client = "\(bus)-" + String(address, radix: 16).padding(toLength: 4, with: "0")
        let folder = "\(i2cDevices)/\(client)"
        guard readAttribute("\(folder)/name") != nil else { return nil }
        self.client = client
        driver = linkName("\(folder)/driver")
        iio = listDirectory(folder)?.first { $0.hasPrefix("iio:device") }.flatMap { IIODevice(id: $0, paths: iioPaths) }
    }

    /// What to do: read it through IIO, or unbind the driver.
    public var advice: String {
        var text = "the kernel's \(driver ?? "(unbound)") driver owns it (I2C client \(client))"
        if let iio, iio.isAccelerometer {
            text += "; read it through that driver with acceld --iio \(iio.id) (backend = iio), or"
        } else {
            text += ";"
        }
        if let driver { text += " unbind the driver: echo \(client) | sudo tee /sys/bus/i2c/drivers/\(driver)/unbind" }
        return text
    }
}

extension String {
    /// Left-pads with `pad` to `length` characters.
    func padding(toLength length: Int, with pad: Character) -> String {
        count >= length ? self : String(repeating: pad, count: length - count) + self
    }
}
