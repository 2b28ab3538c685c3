// SPDX-License-Identifier: Apache-2.0
import AccelCore
#if canImport(Glibc)
import Glibc
#endif

/// The sensor an IIO buffer streams, by its channels' type in the ABI.
public enum IIOSensor: String, Sendable {
    /// `in_accel_*`: m/s², read as g.
    case accel
    /// `in_anglvel_*`: rad/s.
    case anglvel

    /// What one unit of the driver's scale is in acceld's unit.
    var unit: Double { self == .accel ? 9.80665 : 1 }
}

/// Where the kernel shows IIO: tests point these at a tree of their own.
public struct IIOPaths: Sendable, Equatable {
    public var devices = "/sys/bus/iio/devices"
    public var dev = "/dev"
    /// IIO's configfs folder, where an hrtimer trigger is made.
    public var configfs = "/sys/kernel/config/iio"
    public var proc = "/proc"
    public init() {}
}

/// One IIO device in sysfs (`/sys/bus/iio/devices/iio:deviceN`): its name,
/// the driver and I2C address behind it, and its accelerometer's attributes
/// as the IIO ABI names them (sysfs-bus-iio).
public struct IIODevice: Sendable, Equatable, CustomStringConvertible {
    /// `iio:deviceN`.
    public let id: String
    /// The driver's name for the chip (`lis3dh`, `mpu6050`).
    public let name: String
    public let paths: IIOPaths
    public var directory: String { "\(paths.devices)/\(id)" }
    public var node: String { "\(paths.dev)/\(id)" }
    public var description: String { "\(id) (\(name))" }

    public init?(id: String, paths: IIOPaths = IIOPaths()) {
        guard id.hasPrefix("iio:device"), let name = readAttribute("\(paths.devices)/\(id)/name") else { return nil }
        self.id = id
        self.name = name
        self.paths = paths
    }

    /// Every IIO device, in number order.
    public static func all(paths: IIOPaths = IIOPaths()) -> [IIODevice] {
        (listDirectory(paths.devices) ?? []).filter { $0.hasPrefix("iio:device") }
            .sorted { (Int($0.dropFirst(10)) ?? 0) < (Int($1.dropFirst(10)) ?? 0) }
            .compactMap { IIODevice(id: $0, paths: paths) }
    }

    /// The accelerometers among them.
    public static func accelerometers(paths: IIOPaths = IIOPaths()) -> [IIODevice] {
        all(paths: paths).filter(\.isAccelerometer)
    }

    /// `iio:deviceN`, or the first accelerometer with that driver name;
    /// nil: the only accelerometer.
    public static func find(_ spec: String?, paths: IIOPaths = IIOPaths()) throws(IIOError) -> IIODevice {
        let devices = all(paths: paths)
        guard let spec else {
            let found = devices.filter(\.isAccelerometer)
            guard found.count == 1 else {
                if found.isEmpty { throw .noSuchDevice(name: "(any accelerometer)", found: []) }
                throw .ambiguous(found: found.map(\.description))
            }
            return found[0]
        }
        guard let device = devices.first(where: { $0.id == spec }) ?? devices.first(where: { $0.name == spec && $0.isAccelerometer })
                ?? devices.first(where: { $0.name == spec }) else {
            throw .noSuchDevice(name: spec, found: devices.filter(\.isAccelerometer).map(\.description))
        }
        guard device.isAccelerometer else { throw .notAnAccelerometer(device: device.description, channels: device.channels) }
        return device
    }

    // MARK: Attributes

    public func attribute(_ name: String) -> String? { readAttribute("\(directory)/\(name)") }

    /// The first of `names` that exists (per-axis before shared, as the ABI
    /// allows both), each read once: a device unplugged between two reads
    /// of the same file is an absent attribute, never a crash.
    public func attribute(firstOf names: [String]) -> String? {
        for name in names { if let value = attribute(name) { return value } }
        return nil
    }

    public func write(_ name: String, _ value: String) throws(IIOError) {
        let path = "\(directory)/\(name)"
        guard let file = fopen(path, "w") else { throw .io(device: description, what: "opening \(name)", errno: errno) }
        let ok = fputs(value + "\n", file) >= 0
        // sysfs reports a refused value when the write is flushed.
        let closed = fclose(file) == 0
        if !ok || !closed { throw .io(device: description, what: "writing '\(value)' to \(name)", errno: errno) }
    }

    /// The `in_*` channels it has (for messages).
    public var channels: [String] {
        Set((listDirectory(directory) ?? []).compactMap { file -> String? in
            guard file.hasPrefix("in_"), file.hasSuffix("_raw") || file.hasSuffix("_input") else { return nil }
            return String(file.dropFirst(3).prefix { $0 != "_" })
        }).sorted()
    }

    public var isAccelerometer: Bool {
        ["x", "y", "z"].allSatisfy { axis in
            attribute("in_accel_\(axis)_raw") != nil || attribute("scan_elements/in_accel_\(axis)_en") != nil
        }
    }

    /// A gyroscope: `in_anglvel_x/y/z`, read or buffered.
    public var isGyroscope: Bool {
        ["x", "y", "z"].allSatisfy { axis in
            attribute("in_anglvel_\(axis)_raw") != nil || attribute("scan_elements/in_anglvel_\(axis)_en") != nil
        }
    }

    /// The gyroscope on the same chip as this accelerometer, where its
    /// driver makes it a device of its own (st_lsm6dsx's `lsm6dso_gyro`
    /// beside `lsm6dso_accel`, both under the I2C client).
    public func gyroscopeCompanion() -> IIODevice? {
        guard let parent else { return nil }
        return Self.all(paths: paths).first { $0.id != id && $0.parent == parent && $0.isGyroscope }
    }

    /// Multiplier from raw to m/s² (accel) or rad/s (anglvel) for `axis`.
    public func scale(_ axis: String, of sensor: IIOSensor = .accel) throws(IIOError) -> Double {
        let type = sensor.rawValue
        guard let text = attribute(firstOf: ["in_\(type)_\(axis)_scale", "in_\(type)_scale"]), let value = Double(text) else {
            throw .missingAttribute(device: description, attribute: "in_\(type)_\(axis)_scale (or in_\(type)_scale)")
        }
        return value
    }

    /// Added to raw before scaling (most drivers have none).
    public func offset(_ axis: String, of sensor: IIOSensor = .accel) -> Double {
        attribute(firstOf: ["in_\(sensor.rawValue)_\(axis)_offset", "in_\(sensor.rawValue)_offset"]).flatMap(Double.init) ?? 0
    }

    /// The board's mount matrix, from the device tree (identity when the
    /// driver shows none).
    public func mountMatrix(of sensor: IIOSensor = .accel) throws -> MountMatrix {
        guard let text = attribute(firstOf: ["in_\(sensor.rawValue)_mount_matrix", "mount_matrix"]) else { return .identity }
        return try MountMatrix(parsing: text)
    }

    static let frequencyFiles = ["sampling_frequency", "in_accel_sampling_frequency"]

    public var samplingFrequency: Double? { attribute(firstOf: Self.frequencyFiles).flatMap(Double.init) }

    /// The frequencies the driver offers (empty when it lists none).
    public var availableFrequencies: [Double] {
        let text = attribute(firstOf: Self.frequencyFiles.map { $0 + "_available" }) ?? ""
        return text.split(separator: " ").compactMap { Double($0) }
    }

    public func setSamplingFrequency(_ rate: Int) throws(IIOError) {
        let available = availableFrequencies
        if !available.isEmpty && !available.contains(where: { abs($0 - Double(rate)) < 0.01 }) {
            throw .unsupportedRate(device: description, rate: rate, available: available)
        }
        guard let file = Self.frequencyFiles.first(where: { attribute($0) != nil }) else { return }
        try write(file, String(rate))
    }

    // MARK: What is behind it

    /// The device it hangs off (the I2C client `1-0018`), resolved.
    var parent: String? { parentDevice(of: directory) }

    /// The kernel driver bound to the chip (`st-accel-i2c`).
    public var driver: String? { parent.flatMap { linkName("\($0)/driver") } }

    /// The I2C bus and address, when the chip is on I2C (`1-0018`).
    public var i2cAddress: (bus: Int, address: UInt8)? {
        guard let parent, let last = parent.split(separator: "/").last else { return nil }
        let parts = last.split(separator: "-")
        guard parts.count == 2, let bus = Int(parts[0]), parts[1].count == 4, let address = UInt8(parts[1], radix: 16) else { return nil }
        return (bus, address)
    }

    /// `lis3dh (st-accel-i2c, i2c-1 at 0x18)`, for hello and probe.
    public var location: String {
        var where_: [String] = []
        if let driver { where_.append(driver) }
        if let (bus, address) = i2cAddress { where_.append("i2c-\(bus) at \(hex(address))") }
        return "\(id) (\(([name] + where_).joined(separator: ", ")))"
    }

    public static func == (a: IIODevice, b: IIODevice) -> Bool { a.id == b.id && a.paths == b.paths }
}

/// The folder a sysfs device folder sits in, resolved: the device it
/// hangs off.
func parentDevice(of path: String) -> String? {
    guard let resolved = realpath(path, nil) else { return nil }
    defer { free(resolved) }
    let full = String(cString: resolved)
    return String(full[..<(full.lastIndex(of: "/") ?? full.endIndex)])
}

/// A sysfs attribute's value without its newline, or nil.
func readAttribute(_ path: String) -> String? {
    guard let text = readTextFile(path) else { return nil }
    return Substring(text.filter { $0 != "\n" }).trimmingCharacters()
}

/// The names in a directory; nil when it cannot be opened or read to
/// its end (readdir's nil with errno set), never a short list.
func listDirectory(_ path: String) -> [String]? {
    guard let directory = opendir(path) else { return nil }
    defer { closedir(directory) }
    var names: [String] = []
    while true {
        errno = 0
        guard let entry = readdir(directory) else { return errno == 0 ? names : nil }
        let name = withUnsafeBytes(of: entry.pointee.d_name) { String(cString: $0.bindMemory(to: CChar.self).baseAddress!) }
        if name != "." && name != ".." { names.append(name) }
    }
}

/// The last component of a symbolic link's target.
func linkName(_ path: String) -> String? {
    resolvedLink(path)?.split(separator: "/").last.map(String.init)
}
