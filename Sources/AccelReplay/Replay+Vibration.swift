// SPDX-License-Identifier: Apache-2.0
import AccelDaemon
import AccelDriver
import AccelProtocol
import Synchronization

extension Replay {
    /// The `vibration` messages a client watching `watch` gets from the
    /// daemon's core as the motion plays (`acceld replay --streams
    /// vibration`), in order: the evaluations judge the analysis as a user
    /// would meet it, through the chip model, the sampler and the service.
    public func vibration(watch: VibrationWatch = VibrationWatch(), playback: TracePlayback = TracePlayback(),
                          seconds: Double? = nil) throws -> [VibrationMessage] {
        let messages = Mutex<[VibrationMessage]>([])
        let replay = try ReplayRun(motion: motion, configuration: configuration, seconds: seconds, playback: playback)
        try replay.watch(.watch(streams: [.vibration], rate: nil, fields: .all, latency: nil, vibration: watch)) { line in
            if case .vibration(let message)? = try? Message(parsing: line) { messages.withLock { $0.append(message) } }
        }
        replay.run()
        return messages.withLock { $0 }
    }
}
