// SPDX-License-Identifier: Apache-2.0
// The classic tutorials' iBells: ring on each shake, at most once a second.
// Usage: ShakeToRing [seconds]
import AccelClient

let seconds = ExampleArguments.seconds(usage: "ShakeToRing [seconds]: ring on each shake")
let manager = MotionManager()
let minimumInterval = 1.0
let ringing = Task {
    var lastRing = -Double.infinity
    for await event in manager.events([.shake]) {
        // Ring as soon as the shake is recognised, not when it ends.
        guard case .shake(.started(let t, _)) = event, t - lastRing >= minimumInterval else { continue }
        lastRing = t
        print("\u{7}ring! (shake at t=\((t * 100).rounded() / 100) s)")
    }
}
try await Task.sleep(for: .seconds(min(seconds, 1e9)))
ringing.cancel()
// Returning while a task still prints races the process's exit: wait for each to end.
await ringing.value
