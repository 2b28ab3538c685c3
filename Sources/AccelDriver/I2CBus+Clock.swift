// SPDX-License-Identifier: Apache-2.0
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

extension I2CBus {
    /// The adapter's clock, as its device-tree node gives it (a Raspberry
    /// Pi's `dtparam=i2c_arm_baudrate=` sets it); nil where there is none
    /// (x86 adapters, i2c-stub).
    public var clockFrequency: Int? { Self.clockFrequency(node: path) }

    /// `clock-frequency` of `/dev/i2c-N`'s adapter: one big-endian 32-bit
    /// cell in `SYSFS/bus/i2c/devices/i2c-N/of_node/`.
    public static func clockFrequency(node: String, sysfs: String = "/sys") -> Int? {
        guard let name = node.split(separator: "/").last, name.hasPrefix("i2c-") else { return nil }
        guard let file = fopen("\(sysfs)/bus/i2c/devices/\(name)/of_node/clock-frequency", "rb") else { return nil }
        defer { fclose(file) }
        var cell = [UInt8](repeating: 0, count: 4)
        guard fread(&cell, 1, 4, file) == 4 else { return nil }
        let hertz = cell.reduce(0) { $0 << 8 | Int($1) }
        return hertz > 0 ? hertz : nil
    }
}
