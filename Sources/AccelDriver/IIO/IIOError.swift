// SPDX-License-Identifier: Apache-2.0
#if canImport(Glibc)
import Glibc
#endif

/// What can go wrong reaching an accelerometer through the kernel's IIO
/// subsystem, each with what to do and its own exit code (docs/ERRORS.md).
public enum IIOError: Error, Equatable, Sendable, CustomStringConvertible {
    /// No device by that name, or no IIO devices at all.
    case noSuchDevice(name: String, found: [String])
    /// The device has no accelerometer channels (a gyroscope, an ADC).
    case notAnAccelerometer(device: String, channels: [String])
    /// The accelerometer cannot stream: no buffer, or no scan elements.
    case noBuffer(device: String)
    /// A sysfs attribute the reading needs is missing.
    case missingAttribute(device: String, attribute: String)
    /// No trigger of the device's own, and none can be made.
    case noTrigger(device: String, reason: String)
    /// Another program reads the device (its buffer is on, or the node is open).
    case busy(device: String, holder: String)
    /// A sysfs write or a read of the node failed.
    case io(device: String, what: String, errno: Int32)
    /// The sampling frequency asked for is not one the driver offers.
    case unsupportedRate(device: String, rate: Int, available: [Double])
    /// The device went away while being read (unplugged, driver unbound).
    case gone(device: String)
    /// Register access (dump, self-test) asked of a chip the kernel drives.
    case registersUnavailable(device: String)
    /// A range other than the one the driver set.
    case fixedRange(device: String, range: Int)
    /// Several IIO accelerometers, and none named.
    case ambiguous(found: [String])

    public var description: String {
        switch self {
        case .noSuchDevice(let name, let found):
            return "no IIO device '\(name)' under /sys/bus/iio/devices: " + (found.isEmpty
                ? "the kernel drives no IIO device here (load the chip's driver, or a device-tree overlay such as dtoverlay=lis3dh; 'accelctl probe' lists what there is)"
                : "the accelerometers there are \(found.joined(separator: ", ")); pass one of them, as iio:deviceN or by its name")
        case .notAnAccelerometer(let device, let channels):
            return "\(device) is not an accelerometer: it has no in_accel_x/y/z channels (it has \(channels.isEmpty ? "none" : channels.joined(separator: ", "))); 'accelctl probe' lists the IIO accelerometers"
        case .noBuffer(let device):
            return "\(device) has no IIO buffer (no scan_elements for in_accel_x/y/z): its driver cannot stream samples, and acceld reads only through the buffer; use the chip on i2c-dev instead (unbind the kernel driver)"
        case .missingAttribute(let device, let attribute):
            return "\(device) lacks \(attribute), which acceld needs to turn its readings into g: its driver is incomplete; report it, or use the chip on i2c-dev"
        case .noTrigger(let device, let reason):
            return "\(device) has no trigger: \(reason)"
        case .busy(let device, let holder):
            return "\(device) is being read by \(holder): IIO gives a device's buffer to one reader; stop that program (for iio-sensor-proxy: systemctl stop iio-sensor-proxy), acceld will not take it away"
        case .io(let device, let what, let code):
            return "\(device): \(what) failed: \(String(cString: strerror(code))) (errno \(code))" + (code == EACCES || code == EPERM
                ? "; writing IIO's sysfs needs root or a udev rule for the acceld user (docs/INSTALL.md)" : "")
        case .unsupportedRate(let device, let rate, let available):
            return "\(device) does not offer \(rate) Hz: choose one of " + available.map { "\(formatHertz($0)) Hz" }.joined(separator: ", ")
        case .gone(let device):
            return "\(device) went away (unplugged, or its driver was unbound)"
        case .registersUnavailable(let device):
            return "\(device) is driven by the kernel through IIO: its registers (dump, self-test, FIFO) are the kernel driver's; unbind the driver and use the chip on i2c-dev for those"
        case .fixedRange(let device, let range):
            return "\(device) runs at ±\(range) g, as its kernel driver set it: through IIO acceld changes the rate only; set the range in the driver (in_accel_scale, from in_accel_scale_available) before starting acceld"
        case .ambiguous(let found):
            return "there are several IIO accelerometers (\(found.joined(separator: ", "))): name one with --iio DEVICE or iio-device = DEVICE in [device]"
        }
    }

    public var exitCode: Int32 {
        switch self {
        case .noSuchDevice, .gone: 69       // EX_UNAVAILABLE
        case .notAnAccelerometer: 65        // EX_DATAERR: not the device expected
        case .noBuffer, .missingAttribute, .noTrigger: 72  // EX_OSFILE: the kernel side lacks something
        case .busy: 75                      // EX_TEMPFAIL
        case .io(_, _, let code): code == EACCES || code == EPERM ? 77 : 74
        case .unsupportedRate, .registersUnavailable, .fixedRange: 64  // EX_USAGE
        case .ambiguous: 78                 // EX_CONFIG
        }
    }
}

func formatHertz(_ value: Double) -> String {
    value == value.rounded() ? String(Int(value)) : String(value)
}
