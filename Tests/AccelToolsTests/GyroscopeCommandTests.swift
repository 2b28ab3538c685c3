// SPDX-License-Identifier: Apache-2.0
import AccelConfiguration
import AccelCore
import AccelDriver
import Foundation
import Testing
import TestSupport

/// accelctl's direct commands on a six-axis part's chip model: the
/// gyroscope's self-test, its offset at rest, and its calibration.
@Suite("accelctl on a six-axis chip model", .ownThread)
struct GyroscopeCommandTests {
    @Test("selftest on an LSM6DSO runs the gyroscope's too: a good one passes (exit 0), one out of its limits fails (exit 1) naming the axis")
    func selftest() throws {
        let good = try accelctl(["selftest", "--simulate", "rest", "--part", "LSM6DSO"])
        #expect(good.status == 0, "\(good.stdout)\(good.stderr)")
        #expect(good.stdout.contains("LSM6DSO self-test at ±2 g, high-performance mode: PASS"))
        #expect(good.stdout.contains("LSM6DSO gyroscope self-test at ±2000 dps: PASS"))
        let weak = try accelctl(["selftest", "--simulate", "rest", "--part", "LSM6DSO", "--model-gyro-self-test", "425,100,425"])
        #expect(weak.status == 1)
        #expect(weak.stdout.contains("LSM6DSO self-test at ±2 g, high-performance mode: PASS"), "the accelerometer still passes")
        #expect(weak.stdout.contains("Y: FAIL change 100.0 dps (limits |change| 150.0..700.0 dps): moved too little"), "\(weak.stdout)")
    }
}

extension GyroscopeCommandTests {
    @Test("probe on an LSM6DSO judges the gyroscope's offset at rest: within, and beyond ±3 dps")
    func probe() throws {
        // Without noise, at offsets of whole digits (70 mdps), the figures are exact.
        let good = try accelctl(["probe", "--simulate", "rest", "--part", "LSM6DSO", "--model-gyro-offset", "0.49,-0.28,0.84", "--model-gyro-noise", "0"])
        #expect(good.status == 0)
        #expect(good.stdout.contains("chip model (rest) 0x6a: gyroscope offset at rest 0.49, -0.28, 0.84 dps: within the datasheet's ±3 dps"), "\(good.stdout)")
        let bad = try accelctl(["probe", "--simulate", "rest", "--part", "LSM6DSO", "--model-gyro-offset", "0.49,-0.28,4.2", "--model-gyro-noise", "0"])
        #expect(bad.status == 0, "the probe's status is about finding the chip")
        #expect(bad.stdout.contains("gyroscope offset at rest 0.49, -0.28, 4.20 dps: beyond the datasheet's ±3 dps"), "\(bad.stdout)")
        let accelerometer = try accelctl(["probe", "--simulate", "rest"])
        #expect(!accelerometer.stdout.contains("gyroscope"), "a part without one says nothing of it")
    }
}

extension GyroscopeCommandTests {
    @Test("calibrate on an LSM6DSO stores the gyroscope's offset at rest beside the accelerometer's; a board turning meanwhile is refused (exit 1)")
    func calibrate() throws {
        let scratch = scratchDirectory()
        let output = scratch + "/calibration.json"
        let still = try accelctl(["calibrate", "--flat", "--simulate", "rest", "--part", "LSM6DSO", "--model-gyro-offset", "0.7,-1.2,2.1",
                                  "--output", output, "--timeout", "30"])
        #expect(still.status == 0, "\(still.stderr)")
        #expect(still.stdout.contains("keep the board still: measuring the gyroscope's offset at rest"))
        let calibration = try #require(try CalibrationStore(path: output).load())
        let offset = try #require(calibration.gyroscopeOffset)
        #expect((offset - Vector3(0.7, -1.2, 2.1)).magnitude < 0.05, "\(offset)")

        // Flat, turning to and fro about Z at 2 Hz (±30 dps).
        var trace = Trace(rotationRates: [])
        for i in 0...600 {
            let t = Double(i) / 200
            trace.times.append(t)
            trace.samples.append(Vector3(0, 0, 1))
            trace.rotationRates!.append(Vector3(0, 0, 0.5 * sin(2 * .pi * 2 * t)))
        }
        try trace.text.write(toFile: scratch + "/turning.csv", atomically: true, encoding: .utf8)
        let moved = try accelctl(["calibrate", "--flat", "--simulate", scratch + "/turning.csv", "--part", "LSM6DSO",
                                  "--output", scratch + "/refused.json", "--timeout", "30"])
        #expect(moved.status == 1)
        #expect(moved.stderr.contains("the board moved while the gyroscope's offset was measured"), "\(moved.stderr)")
        #expect(!FileManager.default.fileExists(atPath: scratch + "/refused.json"))
    }
}

extension GyroscopeCommandTests {
    @Test("rate on an LSM6DSO: with no --rate it measures at 104 Hz, the part's nearest 100; --rate 100 is refused with its rates (exit 64)")
    func rate() throws {
        let automatic = try accelctl(["rate", "--simulate", "rest", "--part", "LSM6DSO", "--seconds", "0.3"])
        #expect(automatic.stdout.contains("nominal 104 Hz"), "\(automatic.stdout)\(automatic.stderr)")
        let refused = try accelctl(["rate", "--simulate", "rest", "--part", "LSM6DSO", "--rate", "100", "--seconds", "0.3"])
        #expect(refused.status == 64)
        #expect(refused.stderr.contains("rate 100 Hz is not available on the LSM6DSO") && refused.stderr.contains("104 Hz"), "\(refused.stderr)")
    }
}
