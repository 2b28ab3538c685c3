// SPDX-License-Identifier: Apache-2.0
import AccelConfiguration
import AccelCore
import AccelDriver
import AccelMotion
import AccelParts
import AccelProtocol
import Synchronization

/// The daemon's own core on a virtual clock, with one client: what
/// `acceld replay` runs. A `Sampler` reads a `ChipModel` playing the
/// recording (values quantised and clipped as the part makes them), its
/// publisher, the hub with its fan-out, the vibration service and the
/// machine's state do what they do in the daemon, and the client's lines
/// go to `write` as they are made. Nothing waits on the wall clock: the
/// run goes as fast as the CPU allows, and the same input gives the same
/// lines.
public final class ReplayRun {
    public let time = VirtualTime()
    let sampler: Sampler
    let hub: Hub
    private let sink = WriteThroughSink()
    /// The motion's end on the virtual clock (ns).
    private let end: UInt64
    private var nextTick: UInt64 = 1_000_000_000

    /// - Parameters:
    ///   - seconds: how much of the motion plays (all of it when nil; a
    ///     motion without end, such as `machine`, needs it).
    ///   - playback: how a trace that is not a six-axis part's plays on one.
    ///   - tap: sees everything the sampler hands the hub, on the sampler's
    ///     queue (for evaluation, which wants values, not lines).
    public init(motion: any MotionSource, configuration: Configuration, seconds: Double? = nil,
                playback: TracePlayback = TracePlayback(), tap: (@Sendable (SamplerOutput) -> Void)? = nil) throws {
        let time = self.time
        let part = configuration.device.profile ?? .lis302dl
        let still = try DeviceSource.still(motion, playedBy: part, playback: playback)
        let played = DeviceSource.motion(still, sampledAt: Double(configuration.device.configuration.rate))
        let length = min(played.duration, seconds ?? .infinity)
        guard length.isFinite else {
            throw Daemon.StartError(description: "\(motion.name) has no end: say how many seconds of it to play (--seconds)", exitCode: 64)
        }
        end = UInt64(max(length, 0) * 1e9)
        let model = ChipModel(profile: part, motion: played, time: time, location: "chip model (replay of \(motion.name))")
        let mountMatrix = configuration.device.mountMatrix
        let sampler = Sampler(connect: { try Accelerometer(bus: model, time: time, part: part, mountMatrix: mountMatrix) },
                              configuration: configuration.device.configuration, settings: configuration.motion, time: time)
        self.sampler = sampler
        sampler.automaticRate = configuration.device.rate == nil
        try sampler.open()
        let found = sampler.queue.sync { sampler.snapshot }
        var device = DeviceInfo(chip: found.part?.chip ?? part.name, location: found.part?.location ?? model.location,
                                configuration: found.configuration, profile: found.part?.profile ?? part, state: "ok")
        device.gyroscope = found.gyroscopeRange
        hub = Hub(sampler: sampler, device: device, socket: SocketSettings(), vibration: configuration.vibration,
                  calibrationStore: CalibrationStore(path: "/nonexistent"), isPrivileged: { _ in true },
                  notify: { _ in }, now: { time.nanoseconds })
        sampler.output = { [hub] output in
            tap?(output)
            hub.publish(output)
        }
    }

    deinit {
        sampler.output = { _ in }  // the hub holds the sampler, whose output held the hub
    }

    /// The client sends `request` (a watch), as a client on the socket
    /// would; its streamed lines go to `write`, without their newline.
    /// Throws the daemon's error reply when the request is refused.
    public func watch(_ request: Request, write: @escaping @Sendable ([UInt8]) -> Void) throws(ProtocolError) {
        sink.write = write
        hub.control.sync {
            guard let session = hub.open(sink, credentials: PeerCredentials(pid: 1, uid: 0, gid: 0)) else { return }
            hub.received(Array((request.json + "\n").utf8), from: session)
        }
        hub.settle()
        for reply in sink.takeReplies() {
            if case .error(let error)? = try? Message(parsing: reply) { throw error }
        }
    }

    /// Plays the motion to its end, each step on the sampler's queue as
    /// its timer would run it, the clock moved by the delay it asked for;
    /// the vibration windows analysed and the hub's once-a-second tick
    /// run before the next step, so that lines come in one order.
    public func run() {
        while time.nanoseconds <= end {
            let delay = sampler.queue.sync { sampler.step() }
            time.sleep(nanoseconds: max(delay, 1000))
            hub.vibration.queue.sync {}
            hub.tick(upTo: time.nanoseconds, next: &nextTick)
        }
        sampler.queue.sync { sampler.publisher.release() }
        hub.vibration.queue.sync {}
        hub.settle()
    }
}

/// The replay's one client: streamed lines are written as they come,
/// never dropped (the run waits for its reader, as a pipe makes it);
/// replies are kept for the run to check.
private final class WriteThroughSink: ClientSink, @unchecked Sendable {
    // (Unchecked: `write` is set before the client exists; the rest is under the lock.)
    var write: @Sendable ([UInt8]) -> Void = { _ in }
    private let state = Mutex<(generation: Int, replies: [[UInt8]])>((0, []))

    func append(_ line: [UInt8], isReply: Bool, generation: Int?) {
        let current: Bool = state.withLock { state in
            if isReply { state.replies.append(line) }
            return generation.map { $0 == state.generation } ?? true
        }
        if !isReply && current { write(line) }
    }

    func takeReplies() -> [[UInt8]] {
        state.withLock { state in
            defer { state.replies = [] }
            return state.replies
        }
    }

    func flush() {}
    func nextGeneration() { state.withLock { $0.generation += 1 } }
    var generation: Int { state.withLock { $0.generation } }
    func stuck(now: UInt64) -> UInt64? { nil }
    func close() {}
}
