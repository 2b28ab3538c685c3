// SPDX-License-Identifier: Apache-2.0
#if canImport(Glibc)
import Glibc
#endif
import AccelConfiguration
import AccelDaemon
import AccelCore
import AccelDriver
import ArgumentParser

/// Bring-up: configure the chip and print converted samples, nothing else.
struct Sample: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Read the chip in real time and print converted samples.",
        discussion: """
            Each line: seconds since start, raw digits, and g per axis.
            Example: acceld sample --simulate tour --seconds 3 --every 10
            """
    )

    @OptionGroup var device: DeviceOptions

    @Option(help: "How long to read, in seconds.")
    var seconds: Double = 3

    @Option(help: "Print every Nth sample (1 prints all of them).")
    var every: Int = 10

    func validate() throws {
        guard seconds > 0 else { throw ValidationError("--seconds must be more than 0") }
        guard every >= 1 else { throw ValidationError("--every must be 1 or more") }
    }

    func run() throws {
        let time = MonotonicTime()
        var settings = DeviceSettings()
        let accelerometer: Accelerometer
        do {
            try device.apply(to: &settings)
            if case .iio(let name) = device.source(settings) { return try sampleIIO(name, rate: settings.configuration.rate) }
            accelerometer = try device.source(settings).openDriver(time: time, part: settings.profile)
            var wanted = settings.configuration
            // `auto` on a part only WHO_AM_I named: its own rate nearest 100 Hz.
            if settings.rate == nil, let rate = accelerometer.profile.automaticRate(mode: wanted.mode) { wanted.rate = rate }
            try accelerometer.configure(wanted)
        } catch {
            exitWithError(error)
        }
        print("# \(accelerometer.describe())")
        print(header)
        let start = time.nanoseconds
        var count = 0
        do {
            while time.nanoseconds - start < UInt64(seconds * 1e9) {
                let reading = try accelerometer.nextReading()
                defer { count += 1 }
                guard count % every == 0 else { continue }
                let g = accelerometer.acceleration(reading.counts)
                let t = Double(time.nanoseconds - start) / 1e9
                print(row(t, reading.counts, g))
            }
            try accelerometer.powerDown()
        } catch {
            exitWithError(error)
        }
    }
}

extension Sample {
    /// The same table from a kernel driver's IIO buffer (t from the
    /// kernel's timestamps).
    func sampleIIO(_ name: String?, rate: Int) throws {
        let buffer: IIOBuffer
        do { buffer = try IIOBuffer(device: try IIODevice.find(name), rate: rate) } catch { exitWithError(error) }
        print("# \(buffer.device.location) through IIO at \(rate) Hz, trigger \(buffer.trigger ?? "none")")
        print(header)
        var scans: [IIOScan] = [], count = 0, first: Int64?
        let end = MonotonicTime().nanoseconds + UInt64(seconds * 1e9)
        while MonotonicTime().nanoseconds < end {
            var ready = pollfd(fd: buffer.descriptor, events: Int16(POLLIN), revents: 0)
            _ = poll(&ready, 1, 100)
            scans.removeAll(keepingCapacity: true)
            do { try buffer.read(into: &scans) } catch { exitWithError(error) }
            for scan in scans {
                defer { count += 1 }
                guard count % every == 0 else { continue }
                let g = buffer.mountMatrix.apply(buffer.chipValue(scan.counts))
                print(row(Double(scan.timestamp - (first ?? scan.timestamp)) / 1e9, scan.counts, g))
                if first == nil { first = scan.timestamp }
            }
        }
        buffer.close()
    }
}

let header = "#        t   raw x   raw y   raw z        x g        y g        z g"

func row(_ t: Double, _ counts: Counts, _ g: Vector3) -> String {
    pad(fixed(t, 3), 10) + pad(String(counts.x), 8) + pad(String(counts.y), 8)
        + pad(String(counts.z), 8) + pad(fixed(g.x, 3), 11) + pad(fixed(g.y, 3), 11) + pad(fixed(g.z, 3), 11)
}

func pad(_ text: String, _ width: Int) -> String {
    String(repeating: " ", count: max(0, width - text.count)) + text
}
