// SPDX-License-Identifier: Apache-2.0
import AccelConfiguration
import AccelCore
import AccelDaemon
import AccelDriver
import AccelMotion
import AccelProtocol

/// A recording through the daemon's own core on a virtual clock
/// (`ReplayRun`: the chip model, the sampler, its publisher), as values:
/// each frame and event as the sampler hands them on, for the
/// evaluations and the tests. Deterministic, as fast as the CPU allows.
public struct Replay {
    public struct Summary: Sendable, Equatable {
        public var samples = 0
        public var events: [String: Int] = [:]
    }

    public let motion: any MotionSource
    public let configuration: Configuration

    public init(motion: any MotionSource, configuration: Configuration) {
        self.motion = motion
        self.configuration = configuration
    }

    /// Runs to the end of the motion; `onFrame` and `onEvent` get each
    /// frame and event, in order, as they happen.
    @discardableResult
    public func run(onFrame: (Frame) -> Void, onEvent: (MotionEvent) -> Void) throws -> Summary {
        try withoutActuallyEscaping(onFrame) { onFrame in
            try withoutActuallyEscaping(onEvent) { onEvent in
                // (Unchecked: the sampler's steps run inside `queue.sync`
                // from this thread, one at a time, so the handlers are
                // called in turn and never after `run` returns.)
                nonisolated(unsafe) var summary = Summary()
                nonisolated(unsafe) let handlers = (onFrame, onEvent)
                let replay = try ReplayRun(motion: motion, configuration: configuration) { output in
                    for delivery in output.deliveries {
                        handlers.0(delivery.frame)
                        summary.samples += 1
                        for event in delivery.events {
                            handlers.1(event)
                            summary.events[event.className, default: 0] += 1
                        }
                    }
                }
                replay.run()
                return summary
            }
        }
    }
}

extension SamplerOutput {
    /// The frames it carries, oldest first.
    var deliveries: [Delivery] {
        switch self {
        case .frame(let frame, let events): [Delivery(frame: frame, events: events)]
        case .batch(let deliveries): deliveries
        case .device, .configuration: []
        }
    }
}
