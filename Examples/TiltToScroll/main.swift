// SPDX-License-Identifier: Apache-2.0
// The classic tutorials' tilt-to-scroll: tilting the board forward or back
// scrolls a list, faster the further it tilts; level holds still.
// Usage: TiltToScroll [seconds]
import AccelClient

let seconds = ExampleArguments.seconds(usage: "TiltToScroll [seconds]: tilt the board to scroll a list")
let lines = (1...500).map { "line \($0)" }
let manager = MotionManager()
manager.accelerometerUpdateInterval = 0.05
let scrolling = Task {
    var offset = 0.0
    var shown = -1
    for await data in manager.accelerometerUpdates() {
        // y is the forward tilt in g; a dead zone of 0.1 g keeps a level board still.
        let tilt = data.acceleration.y
        if abs(tilt) > 0.1 { offset = max(0, min(Double(lines.count - 1), offset + tilt * 20)) }
        if Int(offset) != shown {
            shown = Int(offset)
            print("\(lines[shown]) (tilt \((tilt * 100).rounded() / 100) g)")
        }
    }
}
try await Task.sleep(for: .seconds(min(seconds, 1e9)))
scrolling.cancel()
// Returning while a task still prints races the process's exit: wait for each to end.
await scrolling.value
