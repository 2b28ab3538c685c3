// SPDX-License-Identifier: Apache-2.0
// The classic tutorials' BubbleLevel: a bubble that drifts to the high
// side as the board tilts. Usage: BubbleLevel [seconds] (ACCELD_SOCKET
// names acceld's socket when it is not /run/acceld/acceld.sock).
import AccelClient
import Dispatch
import Synchronization
#if canImport(Glibc)
import Glibc
#endif

let seconds = ExampleArguments.seconds(usage: "BubbleLevel [seconds]: a bubble level drawn in the terminal")
let manager = MotionManager()
// Whether a sample ever came, and the last error: a run that never reached
// acceld must not end as a success (exit 0) for the script that ran it.
let outcome = Mutex<(samples: Int, error: (any Error)?)>((0, nil))
// With a gyroscope (an LSM6DS part), the heading and how fast it turns too.
let gyro = manager.isGyroAvailable
manager.deviceMotionUpdateInterval = 0.1
manager.startDeviceMotionUpdates(to: DispatchQueue(label: "level")) { motion, error in
    if let error {
        print("BubbleLevel: no samples: \(error)")
        outcome.withLock { $0.error = error }
    }
    guard let attitude = motion?.attitude else { return }
    outcome.withLock { $0.samples += 1 }
    let pitch = attitude.pitch * 180 / .pi, roll = attitude.roll * 180 / .pi
    // ±45° spans the vial; the bubble rises away from the low edge.
    let width = 21
    let position = max(0, min(width - 1, width / 2 - Int((roll / 45 * Double(width / 2)).rounded())))
    let vial = String(repeating: "-", count: position) + "o" + String(repeating: "-", count: width - 1 - position)
    let turning = motion.map { m in (m.rotationRate.x * m.rotationRate.x + m.rotationRate.y * m.rotationRate.y + m.rotationRate.z * m.rotationRate.z).squareRoot() * 180 / .pi } ?? 0
    let heading = gyro ? " yaw \(Int((attitude.yaw * 180 / .pi).rounded()))° turning \(Int(turning.rounded()))°/s" : ""
    print("[\(vial)] pitch \(Int(pitch.rounded()))° roll \(Int(roll.rounded()))°\(heading)\(abs(pitch) < 1 && abs(roll) < 1 ? " level" : "")")
}
try await Task.sleep(for: .seconds(min(seconds, 1e9)))
manager.stopDeviceMotionUpdates()
let (samples, error) = outcome.withLock { ($0.samples, $0.error) }
if samples == 0 {
    print("BubbleLevel: no sample arrived in \(seconds) s\(error.map { ": \($0)" } ?? "")")
    exit((error as? ClientError)?.exitCode ?? 69)   // EX_UNAVAILABLE
}
