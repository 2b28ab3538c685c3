// SPDX-License-Identifier: Apache-2.0
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
            accelerometer = try device.source(settings).openDriver(time: time, part: settings.profile)
            try accelerometer.configure(settings.configuration)
        } catch {
            exitWithError(error)
        }
        print("# \(accelerometer.describe())")
        print("#        t   raw x   raw y   raw z        x g        y g        z g")
        let start = time.nanoseconds
        var count = 0
        do {
            while time.nanoseconds - start < UInt64(seconds * 1e9) {
                let reading = try accelerometer.nextReading()
                defer { count += 1 }
                guard count % every == 0 else { continue }
                let g = accelerometer.acceleration(reading.counts)
                let t = Double(time.nanoseconds - start) / 1e9
                print(pad(fixed(t, 3), 10) + pad(String(reading.counts.x), 8) + pad(String(reading.counts.y), 8)
                      + pad(String(reading.counts.z), 8) + pad(fixed(g.x, 3), 11) + pad(fixed(g.y, 3), 11) + pad(fixed(g.z, 3), 11))
            }
            try accelerometer.powerDown()
        } catch {
            exitWithError(error)
        }
    }
}

func pad(_ text: String, _ width: Int) -> String {
    String(repeating: " ", count: max(0, width - text.count)) + text
}
