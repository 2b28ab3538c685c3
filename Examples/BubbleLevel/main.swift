// SPDX-License-Identifier: Apache-2.0
// The classic tutorials' BubbleLevel: a bubble that drifts to the high
// side as the board tilts. Usage: BubbleLevel [seconds] (ACCELD_SOCKET
// names acceld's socket when it is not /run/acceld/acceld.sock).
import AccelClient
import Dispatch

let seconds = CommandLine.arguments.dropFirst().first.flatMap(Double.init) ?? .infinity
let manager = MotionManager()
// With a gyroscope (an LSM6DS part), the heading and how fast it turns too.
let gyro = manager.isGyroAvailable
manager.deviceMotionUpdateInterval = 0.1
manager.startDeviceMotionUpdates(to: DispatchQueue(label: "level")) { motion, error in
    if let error { print("BubbleLevel: no samples: \(error)") }
    guard let attitude = motion?.attitude else { return }
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
