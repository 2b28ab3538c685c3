// SPDX-License-Identifier: Apache-2.0
import AccelCore
#if canImport(Glibc)
import Glibc
#endif

/// One scan: the chip's raw axes and the kernel's timestamp of it.
public struct IIOScan: Sendable, Equatable {
    public var counts: Counts
    /// Nanoseconds on CLOCK_MONOTONIC (acceld sets the device's clock).
    public var timestamp: Int64
}

/// An accelerometer's (or a gyroscope's) IIO buffer, streaming: x, y, z and the timestamp
/// enabled, a trigger chosen (the device's own, such as its data-ready
/// interrupt; else an hrtimer trigger made through configfs), the
/// frequency set, the node `/dev/iio:deviceN` open and non-blocking. As
/// iio-sensor-proxy and libiio do it, with sysfs and read(2) only.
public final class IIOBuffer {
    public let device: IIODevice
    public let layout: IIOScanLayout
    /// The trigger that drives it (nil: the driver's own FIFO needs none).
    public private(set) var trigger: String?
    public let descriptor: Int32
    public let sensor: IIOSensor
    /// Raw to g (or rad/s) per axis: (raw + offset) × scale, in g for an
    /// accelerometer (divided by standard gravity).
    public let scale: Vector3, offset: Vector3
    /// The board's mount matrix, from the driver (device tree).
    public let mountMatrix: MountMatrix
    private let axes: [IIOScanLayout.Element]
    private let stamp: IIOScanLayout.Element
    private var madeTrigger: String?
    private var setTrigger = false
    private var bytes: [UInt8]
    private var closed = false

    /// Sets the device up at `rate` Hz and starts it.
    public init(device: IIODevice, rate: Int, sensor: IIOSensor = .accel) throws {
        self.device = device
        self.sensor = sensor
        let elements = "scan_elements"
        guard listDirectory("\(device.directory)/\(elements)")?.contains("in_\(sensor.rawValue)_x_en") == true else { throw IIOError.noBuffer(device: device.description) }
        scale = Vector3(try device.scale("x", of: sensor), try device.scale("y", of: sensor), try device.scale("z", of: sensor)) * (1 / sensor.unit)
        offset = Vector3(device.offset("x", of: sensor), device.offset("y", of: sensor), device.offset("z", of: sensor))
        mountMatrix = try device.mountMatrix(of: sensor)

        // The node first: IIO lets one process open it, so a reader
        // already there is found before anything is changed.
        descriptor = open(device.node, O_RDONLY | O_NONBLOCK | O_CLOEXEC)
        guard descriptor >= 0 else {
            let code = errno
            if code == EBUSY { throw IIOError.busy(device: device.description, holder: Self.holder(of: device)) }
            if code == ENOENT { throw IIOError.noBuffer(device: device.description) }
            throw IIOError.io(device: device.description, what: "opening \(device.node)", errno: code)
        }
        do {
            (layout, axes, stamp) = try Self.enableChannels(device, sensor)
        } catch {
            Glibc.close(descriptor)
            throw error
        }
        bytes = [UInt8](repeating: 0, count: layout.scanBytes * 64)
        // From here on a failure is undone by deinit's close().
        trigger = try chooseTrigger(rate: rate)
        try device.setSamplingFrequency(rate)
        try? device.write("buffer/length", "256")
        try device.write("buffer/enable", "1")
    }

    deinit { close() }

    /// Enables x, y, z and the timestamp, and nothing else.
    private static func enableChannels(_ device: IIODevice, _ sensor: IIOSensor) throws -> (IIOScanLayout, [IIOScanLayout.Element], IIOScanLayout.Element) {
        if device.attribute("buffer/enable") == "1" { try device.write("buffer/enable", "0") }
        let wanted = ["x", "y", "z"].map { "in_\(sensor.rawValue)_\($0)" } + ["in_timestamp"]
        // A listing cut short would leave channels as they were: said, not skipped.
        guard let files = listDirectory("\(device.directory)/scan_elements") else {
            throw IIOError.io(device: device.description, what: "listing scan_elements", errno: errno)
        }
        for file in files where file.hasSuffix("_en") {
            let channel = String(file.dropLast(3))
            let on = wanted.contains(channel)
            if device.attribute("scan_elements/\(file)") != (on ? "1" : "0") { try device.write("scan_elements/\(file)", on ? "1" : "0") }
        }
        // Timestamps on acceld's clock, not the default CLOCK_REALTIME.
        if device.attribute("current_timestamp_clock") != nil { try device.write("current_timestamp_clock", "monotonic") }
        var elements: [IIOScanLayout.Element] = []
        for channel in wanted {
            guard let type = device.attribute("scan_elements/\(channel)_type"),
                  let index = device.attribute("scan_elements/\(channel)_index").flatMap(Int.init),
                  let element = IIOScanLayout.Element(name: channel, index: index, type: type) else {
                throw IIOError.missingAttribute(device: device.description, attribute: "scan_elements/\(channel)_type and _index")
            }
            elements.append(element)
        }
        let layout = IIOScanLayout(elements)
        return (layout, wanted.dropLast().map { layout.element($0)! }, layout.element("in_timestamp")!)
    }

    /// The trigger already set, the device's own, or an hrtimer made for it.
    private func chooseTrigger(rate: Int) throws -> String? {
        guard let current = device.attribute("trigger/current_trigger") else { return nil }
        if !current.isEmpty { return current }
        let name: String
        if let own = IIOTriggers.own(of: device) {
            name = own
        } else {
            name = try IIOTriggers.makeHRTimer(for: device, rate: rate)
            madeTrigger = name
        }
        try device.write("trigger/current_trigger", name)
        setTrigger = true
        return name
    }

    /// Reads every whole scan waiting (none when the buffer is empty).
    public func read(into scans: inout [IIOScan]) throws {
        while true {
            let n = Glibc.read(descriptor, &bytes, bytes.count)
            if n < 0 {
                let code = errno
                if code == EAGAIN || code == EINTR { return }
                if code == ENODEV { throw IIOError.gone(device: device.description) }
                throw IIOError.io(device: device.description, what: "reading \(device.node)", errno: code)
            }
            if n == 0 { throw IIOError.gone(device: device.description) }
            bytes.withUnsafeBytes { raw in
                for start in stride(from: 0, to: n - layout.scanBytes + 1, by: layout.scanBytes) {
                    let scan = UnsafeRawBufferPointer(rebasing: raw[start..<start + layout.scanBytes])
                    let v = axes.map { Int($0.value(in: scan)) }
                    scans.append(IIOScan(counts: Counts(v[0], v[1], v[2]), timestamp: stamp.value(in: scan)))
                }
            }
            if n < bytes.count { return }
        }
    }

    /// Raw digits to g (or rad/s) in the chip's axes (before the mount
    /// matrix and calibration).
    public func chipValue(_ counts: Counts) -> Vector3 {
        (counts.vector + offset).scaled(by: scale)
    }

    /// Stops the buffer and undoes what acceld set up; idempotent. With
    /// `keepingDescriptor`, the node stays open: the caller closes it once
    /// nothing polls it any more.
    public func close(keepingDescriptor: Bool = false) {
        guard !closed else { return }
        closed = true
        if !keepingDescriptor && descriptor >= 0 { Glibc.close(descriptor) }
        try? device.write("buffer/enable", "0")
        if setTrigger { try? device.write("trigger/current_trigger", "") }
        if let madeTrigger { IIOTriggers.remove(madeTrigger, paths: device.paths) }
    }

    /// Who holds the device's node open, from /proc/*/fd.
    static func holder(of device: IIODevice) -> String {
        for pid in listDirectory(device.paths.proc) ?? [] where Int(pid) != nil {
            let fds = "\(device.paths.proc)/\(pid)/fd"
            for fd in listDirectory(fds) ?? [] where resolvedLink("\(fds)/\(fd)") == device.node {
                let command = readAttribute("\(device.paths.proc)/\(pid)/comm") ?? "?"
                return "\(command) (PID \(pid))"
            }
        }
        return "another program (one this user cannot see in /proc)"
    }
}

/// The target of a symbolic link, as written.
func resolvedLink(_ path: String) -> String? {
    var buffer = [CChar](repeating: 0, count: 4096)
    let n = readlink(path, &buffer, buffer.count - 1)
    guard n > 0 else { return nil }
    return String(decoding: buffer[0..<n].map { UInt8(bitPattern: $0) }, as: UTF8.self)
}
