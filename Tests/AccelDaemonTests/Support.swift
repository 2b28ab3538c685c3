// SPDX-License-Identifier: Apache-2.0
import AccelConfiguration
import AccelDaemon
import AccelCore
import AccelDriver
import AccelMotion
import AccelReplay

import TestSupport

/// Replays a shared recording and returns its events.
func replayEvents(_ file: String, rate: Int, range: Int = 2) throws -> (frames: [Frame], events: [MotionEvent]) {
    var configuration = Configuration()
    configuration.device.rate = rate
    configuration.device.range = range
    let motion = TraceMotion(try Trace(contentsOf: sharedData + "/" + file), name: file)
    var frames: [Frame] = []
    var events: [MotionEvent] = []
    try Replay(motion: motion, configuration: configuration).run(onFrame: { frames.append($0) }, onEvent: { events.append($0) })
    return (frames, events)
}

extension MotionEvent {
    var orientation: DeviceOrientation? { if case .orientation(let o) = self { o.orientation } else { nil } }
    var isShake: Bool { if case .shake = self { true } else { false } }
    var shakeStart: Double? { if case .shake(.started(_, let start)) = self { start } else { nil } }
    var fallStarted: Bool { if case .freeFall(.started) = self { true } else { false } }
    var fallConfirmed: Bool { if case .freeFall(.confirmed) = self { true } else { false } }
    var fallDuration: Double? { if case .freeFall(.ended(_, _, let d, _)) = self { d } else { nil } }
}
