// SPDX-License-Identifier: Apache-2.0
// Auto-rotation: the rotation a display on the board should take as it is
// turned, like an iPhone's interface (face up or down keeps the last one).
// Usage: AutoRotation [seconds]
import AccelClient

let seconds = ExampleArguments.seconds(usage: "AutoRotation [seconds]: the rotation a display on the board should take")
let manager = MotionManager()
let rotating = Task {
    for await event in manager.events([.orientation]) {
        guard case .orientation(let change) = event else { continue }
        let degrees: Int? = switch change.orientation {
        case .portrait: 0
        case .landscapeLeft: 90
        case .portraitUpsideDown: 180
        case .landscapeRight: 270
        default: nil
        }
        if let degrees {
            print("\(change.orientation.rawValue): rotate the display to \(degrees)°")
        } else {
            print("\(change.orientation.rawValue): keep the display as it is")
        }
    }
}
try await Task.sleep(for: .seconds(min(seconds, 1e9)))
rotating.cancel()
// Returning while a task still prints races the process's exit: wait for each to end.
await rotating.value
