// SPDX-License-Identifier: Apache-2.0
// docs/CLIENTS.md's first ten lines, verbatim below this comment (a test
// checks that the two agree, and runs this program against acceld).
import AccelClient
import Dispatch
let manager = MotionManager()                      // $ACCELD_SOCKET or /run/acceld/acceld.sock
manager.accelerometerUpdateInterval = 0.1          // 10 Hz
manager.startAccelerometerUpdates(to: .main) { data, error in
    if let error { print("no samples: \(error)") }   // once an outage; it reconnects by itself
    guard let a = data?.acceleration else { return }
    print("x \(a.x) y \(a.y) z \(a.z) g")
}
dispatchMain()
