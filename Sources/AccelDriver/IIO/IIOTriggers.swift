// SPDX-License-Identifier: Apache-2.0
#if canImport(Glibc)
import Glibc
#endif

/// IIO triggers (`/sys/bus/iio/devices/triggerN`): the one a driver makes
/// from the chip's interrupt line, and the hrtimer trigger a program makes
/// through configfs when the board wired no interrupt.
public enum IIOTriggers {
    /// Every trigger: its sysfs folder name and its `name`.
    static func all(paths: IIOPaths) -> [(folder: String, name: String)] {
        (listDirectory(paths.devices) ?? []).filter { $0.hasPrefix("trigger") }.sorted().compactMap { folder in
            readAttribute("\(paths.devices)/\(folder)/name").map { (folder, $0) }
        }
    }

    /// The device's own trigger: one that hangs off the same chip (the
    /// st_sensors and most drivers register it on the I2C client), else
    /// one named after the device as the kernel's drivers name them
    /// (`lis3dh-trigger`, `mpu6050-dev0`).
    public static func own(of device: IIODevice) -> String? {
        let triggers = all(paths: device.paths)
        if let parent = device.parent {
            for trigger in triggers {
                if parentDevice(of: "\(device.paths.devices)/\(trigger.folder)") == parent { return trigger.name }
            }
        }
        return triggers.first { $0.name == "\(device.name)-trigger" || $0.name.hasPrefix("\(device.name)-dev") }?.name
    }

    static func hrtimerFolder(_ paths: IIOPaths) -> String { "\(paths.configfs)/triggers/hrtimer" }

    /// Makes an hrtimer trigger `acceld-deviceN` at `rate` Hz; returns its name.
    static func makeHRTimer(for device: IIODevice, rate: Int) throws(IIOError) -> String {
        let folder = hrtimerFolder(device.paths)
        guard access(folder, F_OK) == 0 else {
            throw .noTrigger(device: device.description, reason: "the board wires no interrupt for it (the driver made no trigger), and this kernel offers no hrtimer trigger at \(folder): load iio-trig-hrtimer (modprobe iio-trig-hrtimer) and mount configfs (mount -t configfs none /sys/kernel/config), or give the chip its interrupt line in the device tree")
        }
        let name = "acceld-" + device.id.replacingColons
        if mkdir("\(folder)/\(name)", 0o755) != 0 && errno != EEXIST {
            throw .io(device: device.description, what: "making the hrtimer trigger \(folder)/\(name)", errno: errno)
        }
        guard let trigger = all(paths: device.paths).first(where: { $0.name == name }) else {
            throw .noTrigger(device: device.description, reason: "configfs made \(folder)/\(name) but no trigger of that name appeared in \(device.paths.devices)")
        }
        let frequency = "\(device.paths.devices)/\(trigger.folder)/sampling_frequency"
        guard let file = fopen(frequency, "w"), fputs("\(rate)\n", file) >= 0, fclose(file) == 0 else {
            throw .io(device: device.description, what: "setting \(frequency) to \(rate)", errno: errno)
        }
        return name
    }

    /// Removes an hrtimer trigger acceld made.
    static func remove(_ name: String, paths: IIOPaths) {
        rmdir("\(hrtimerFolder(paths))/\(name)")
    }
}

extension String {
    /// `iio:device0` as `device0`: configfs names are plain.
    var replacingColons: String { split(separator: ":").last.map(String.init) ?? self }
}
