// SPDX-License-Identifier: Apache-2.0
import AccelConfiguration
import AccelCore
import AccelDriver
import AccelMotion
import AccelReplay

/// What the pipeline said about one recording, reduced to what the
/// regression table judges: per detector, when its first message came and
/// what it finally reported. The only code that reads `MotionEvent`s here.
struct Observation {
    struct Shake { var firstMessage: Double; var start: Double }
    struct Fall { var firstMessage: Double; var start: Double; var duration: Double? }
    struct Movement { var start: Double; var duration: Double }
    struct Tap { var t: Double; var count: Int }

    var frames: [(t: Double, gravity: Vector3, orientation: DeviceOrientation)] = []
    var shakes: [Shake] = []
    /// Falls that the detector stands by (reported or confirmed).
    var falls: [Fall] = []
    /// Early warnings the detector withdrew.
    var withdrawnFalls: [Fall] = []
    /// Early warnings not (yet) confirmed or withdrawn.
    private var warnings: [Fall] = []
    var orientationChanges: [(t: Double, orientation: DeviceOrientation)] = []
    var movements: [Movement] = []
    var taps: [Tap] = []

    /// Replays `recording` at `rate` through the chip model and the pipeline.
    init(_ recording: DevelopmentData.Recording, configuration base: Configuration, rate: Int) throws {
        var configuration = base
        configuration.device.rate = rate
        var orientation = DeviceOrientation.unknown
        var events: [MotionEvent] = []
        var frames: [(t: Double, gravity: Vector3, orientation: DeviceOrientation)] = []
        try Replay(motion: recording.motion, configuration: configuration).run(
            onFrame: { frame in frames.append((frame.t, frame.gravity, orientation)) },
            onEvent: { event in
                if case .orientation(let change) = event { orientation = change.orientation }
                events.append(event)
            })
        self.frames = frames
        for event in events { record(event) }
    }

    private mutating func record(_ event: MotionEvent) {
        switch event {
        case .orientation(let change):
            orientationChanges.append((change.t, change.orientation))
        case .shake(.started(let t, let start)):
            shakes.append(Shake(firstMessage: t, start: start))
        case .shake(.ended):
            break
        case .freeFall(.started(let t, let start)):
            warnings.append(Fall(firstMessage: t, start: start))
        case .freeFall(.confirmed(_, let start)):
            if let i = warnings.lastIndex(where: { $0.start == start }) { falls.append(warnings.remove(at: i)) }
        case .freeFall(.withdrawn(_, let start, _)):
            if let i = warnings.lastIndex(where: { $0.start == start }) { withdrawnFalls.append(warnings.remove(at: i)) }
        case .freeFall(.ended(_, let start, let duration, _)):
            if let i = falls.lastIndex(where: { $0.start == start }) { falls[i].duration = duration }
        case .movement(let m):
            movements.append(Movement(start: m.start, duration: m.duration))
        case .tap(let tap):
            taps.append(Tap(t: tap.t, count: tap.count))
        }
    }
}
