// SPDX-License-Identifier: Apache-2.0
import AccelConfiguration
import AccelCore
import Foundation
import Testing
import TestSupport

/// accelctl's direct commands on a six-axis part's chip model: the
/// gyroscope's self-test, its offset at rest, and its calibration.
@Suite("accelctl on a six-axis chip model", .daemons)
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
