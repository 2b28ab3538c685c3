// SPDX-License-Identifier: Apache-2.0
// Test helper (not installed): writes two calibrations to one file, in
// turn, as fast as it can, until killed. RobustnessTests kills it with
// SIGKILL at random moments and checks the file is never torn.
import AccelConfiguration
import AccelCore
import AccelDriver

let store = CalibrationStore(path: CommandLine.arguments[1])
let versions = [Calibration(offset: Vector3(0.011, 0.022, 0.033), scale: Vector3(1.01, 1.02, 1.03)),
                Calibration(offset: Vector3(-0.044, -0.055, -0.066), scale: Vector3(0.97, 0.98, 0.99))]
var i = 0
while true {
    try store.save(versions[i % 2])
    i += 1
}
