// SPDX-License-Identifier: Apache-2.0
import AccelDriver
import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// A tree that mimics the kernel's IIO in sysfs, configfs, /dev and /proc
/// for one accelerometer on I2C (`1-0018`), as a driver like st_accel
/// shows it, with a FIFO for its node: the test writes scans into it as
/// the kernel would hand them over. The one that made the tree removes it
/// in its deinit, which Swift may run right after the object's last use:
/// a test whose last use of it comes before the code under test is done
/// keeps it with `withExtendedLifetime`.
public final class FakeIIO {
    public let root: String
    public let paths: IIOPaths
    public let id: String
    /// Where the device's folder really is (devices/iio:deviceN links to it).
    public let folder: String
    /// Made the tree (others share it): removes it when done.
    private let ownsRoot: Bool
    /// /sys/bus/i2c/devices, with the client 1-0018 in it.
    public var i2cDevices: String { "\(root)/sys/bus/i2c/devices" }
    /// The write end of the node's FIFO, -1 once unplugged.
    public private(set) var writer: Int32 = -1

    /// - Parameters:
    ///   - types: scan element types for x, y, z (the timestamp is le:s64/64>>0).
    ///   - ownTrigger: a `NAME-trigger` on the same I2C client.
    ///   - sensor: the channels' type: `accel`, or `anglvel` for a gyroscope.
    ///   - client: the I2C client it hangs off (two devices of one chip share it).
    public init(name: String = "lis3dh", number: Int = 0, scale: String = "0.009582", offset: String? = nil,
                mountMatrix: String? = nil, type: String = "le:s12/16>>4", ownTrigger: Bool = true,
                frequencies: String = "1 10 25 50 100 200 400", hrtimer: Bool = false, root: String? = nil,
                sensor: String = "accel", client clientName: String = "1-0018") {
        self.root = root ?? scratchDirectory()
        ownsRoot = root == nil
        var paths = IIOPaths()
        paths.devices = "\(self.root)/sys/bus/iio/devices"
        paths.dev = "\(self.root)/dev"
        paths.configfs = "\(self.root)/config/iio"
        paths.proc = "\(self.root)/proc"
        self.paths = paths
        id = "iio:device\(number)"
        let client = "\(self.root)/sys/devices/i2c-1/\(clientName)"
        folder = "\(client)/\(id)"
        for directory in [paths.devices, paths.dev, paths.proc, "\(self.root)/sys/bus/i2c/drivers/st-accel-i2c", "\(folder)/scan_elements", "\(folder)/trigger", "\(folder)/buffer"] {
            try? FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        }
        if hrtimer { try? FileManager.default.createDirectory(atPath: "\(paths.configfs)/triggers/hrtimer", withIntermediateDirectories: true) }
        symlink("\(self.root)/sys/bus/i2c/drivers/st-accel-i2c", "\(client)/driver")
        try? FileManager.default.createDirectory(atPath: i2cDevices, withIntermediateDirectories: true)
        symlink(client, "\(i2cDevices)/\(clientName)")
        write("\(client)/name", name)
        var files = ["name": name, "in_\(sensor)_scale": scale, "sampling_frequency": "100",
                     "sampling_frequency_available": frequencies, "current_timestamp_clock": "realtime",
                     "trigger/current_trigger": "", "buffer/enable": "0", "buffer/length": "2"]
        if let offset { files["in_\(sensor)_offset"] = offset }
        if let mountMatrix { files["in_\(sensor)_mount_matrix"] = mountMatrix }
        for (index, axis) in ["x", "y", "z"].enumerated() {
            files["in_\(sensor)_\(axis)_raw"] = "0"
            files["scan_elements/in_\(sensor)_\(axis)_en"] = "0"
            files["scan_elements/in_\(sensor)_\(axis)_index"] = "\(index)"
            files["scan_elements/in_\(sensor)_\(axis)_type"] = type
        }
        files["scan_elements/in_timestamp_en"] = "0"
        files["scan_elements/in_timestamp_index"] = "3"
        files["scan_elements/in_timestamp_type"] = "le:s64/64>>0"
        for (file, value) in files { write("\(folder)/\(file)", value) }
        symlink(folder, "\(paths.devices)/\(id)")
        if ownTrigger { addTrigger(number: 0, name: "\(name)-trigger", under: client) }
        plug()
    }

    /// A trigger folder with its name, under `parent` (default: no device).
    public func addTrigger(number: Int, name: String, under parent: String? = nil) {
        let place = "\(parent ?? "\(root)/sys/devices/virtual")/trigger\(number)"
        try? FileManager.default.createDirectory(atPath: place, withIntermediateDirectories: true)
        write("\(place)/name", name)
        write("\(place)/sampling_frequency", "0")
        symlink(place, "\(paths.devices)/trigger\(number)")
    }

    public func attribute(_ file: String) -> String {
        ((try? String(contentsOfFile: "\(folder)/\(file)", encoding: .utf8)) ?? "").trimmingCharacters(in: .whitespacesAndNewlines)
    }

    public func write(_ path: String, _ value: String) {
        _ = FileManager.default.createFile(atPath: path, contents: Data((value + "\n").utf8))
    }

    /// The node, a FIFO held open for writing by the test (close-on-exec:
    /// an acceld another test spawns must not hold it open, or an unplug
    /// would never reach the reader as end of file).
    public func plug() {
        let node = "\(paths.dev)/\(id)"
        unlink(node)
        mkfifo(node, 0o600)
        writer = open(node, O_RDWR | O_NONBLOCK | O_CLOEXEC)
    }

    /// The device goes away: its node reads end-of-file and its folder goes.
    public func unplug() {
        close(writer)
        writer = -1
        unlink("\(paths.dev)/\(id)")
        unlink("\(paths.devices)/\(id)")
    }

    /// Comes back where it was.
    public func replug() {
        symlink(folder, "\(paths.devices)/\(id)")
        plug()
    }

    /// Writes scans of left-justified axes and a timestamp, as the kernel
    /// lays them out (three le:s12/16>>4, or with `shift` 0 le:s16/16,
    /// padding, le:s64).
    public func send(_ scans: [(x: Int, y: Int, z: Int, t: Int64)], shift: Int = 4) {
        var bytes: [UInt8] = []
        for scan in scans {
            for value in [scan.x, scan.y, scan.z] {
                let word = UInt16(bitPattern: Int16(value << shift))
                bytes += [UInt8(word & 0xFF), UInt8(word >> 8)]
            }
            bytes += [0, 0]
            withUnsafeBytes(of: scan.t.littleEndian) { bytes += $0 }
        }
        _ = bytes.withUnsafeBytes { Glibc.write(writer, $0.baseAddress, $0.count) }
    }

    deinit {
        if writer >= 0 { close(writer) }
        if ownsRoot { try? FileManager.default.removeItem(atPath: root) }
    }
}
