// SPDX-License-Identifier: Apache-2.0
import AccelConfiguration
import AccelCore
import AccelDriver
import AccelMotion
import AccelProtocol

/// Feeds a recording through the chip model (so values are quantised and
/// clipped as the real chip would make them) and the daemon's pipeline, on
/// a virtual clock, as fast as the CPU allows. Emits the messages a client
/// subscribed to everything would receive. Deterministic.
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

    /// Runs to the end of the motion; `emit` gets each frame's and event's
    /// value (`onFrame`/`onEvent`) as they happen.
    @discardableResult
    public func run(onFrame: (Frame) -> Void, onEvent: (MotionEvent) -> Void) throws -> Summary {
        let time = VirtualTime()
        let part = configuration.device.profile ?? .lis302dl
        try DeviceSource.refuseMissingRotation(motion, part: part)
        let played = DeviceSource.motion(motion, sampledAt: Double(configuration.device.configuration.rate))
        let model = ChipModel(profile: part, motion: played, time: time, location: "chip model (replay of \(motion.name))")
        let driver = try Accelerometer(bus: model, time: time, part: part, mountMatrix: configuration.device.mountMatrix)
        try driver.configure(configuration.device.configuration)
        var pipeline = MotionPipeline(settings: configuration.motion, gyroscopeRange: driver.rotationRange ?? .infinity)
        var events: [MotionEvent] = []
        var summary = Summary()
        let period = model.periodNanoseconds
        let end = UInt64(played.duration * 1e9)
        var seq: UInt64 = 0
        // configure() left the clock at the first sample instant (turn-on time).
        while time.nanoseconds <= end {
            let reading = try driver.read()
            if reading.status.contains(.dataReady) {
                let sample = Sample(seq: seq, t: time.seconds, counts: reading.counts, g: driver.acceleration(reading.counts),
                                    rotationRate: reading.rotation.flatMap(driver.rotationRate))
                seq += 1
                onFrame(pipeline.process(sample, events: &events))
                summary.samples += 1
                for event in events {
                    onEvent(event)
                    summary.events[event.className, default: 0] += 1
                }
                events.removeAll(keepingCapacity: true)
            }
            time.sleep(nanoseconds: period)
        }
        return summary
    }

    /// Runs and writes NDJSON lines, frames and events in order.
    @discardableResult
    public func run(writingTo writer: LineWriter, frames: Bool = true) throws -> Summary {
        try run(onFrame: { frame in if frames { writer.write(bytes: frame.jsonBytes()) } },
                onEvent: { event in writer.write(line: event.json) })
    }
}
