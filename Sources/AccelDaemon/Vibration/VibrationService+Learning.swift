// SPDX-License-Identifier: Apache-2.0
import AccelCore
import AccelMachine
import AccelProtocol
import AccelVibration

/// Learning the machine's off level (a client's `learn`, or `[vibration]
/// idle-threshold = learn` at start): the samples go to an
/// `OffLevelLearner` on the service's queue, whatever clients watch; the
/// idle threshold it gives replaces the configured one until a reload.
extension VibrationService {
    struct Learning {
        var learner: OffLevelLearner
        let rate: Double
        /// At start nobody waits: a machine that runs makes it wait for a
        /// quiet span rather than give up.
        let atStart: Bool
        let seconds: Double
        let reply: @Sendable (Result<LearnedLevel, ProtocolError>) -> Void
        /// Said once: the machine ran, so the span begins again at rest.
        var waitSaid = false
    }

    /// Learns over `seconds` at the chip's `rate`; `reply` (on this
    /// service's queue) gets the level learned, or why not: one learning at
    /// a time, and none while the machine runs.
    func learn(seconds: Double, rate: Double, atStart: Bool = false, reply: @escaping @Sendable (Result<LearnedLevel, ProtocolError>) -> Void) {
        queue.async { [self] in
            guard learning == nil else {
                return reply(.failure(ProtocolError("busy", "acceld is already learning the machine's off level; its reply comes when it is done", request: "learn")))
            }
            if let group = groups.first(where: { $0.watch.sharesWindows(with: VibrationWatch()) }), group.analyzer.machineState == .running {
                return reply(.failure(ProtocolError("machine-running", "the machine runs (its state is running, over running-threshold \(configured.state.running) g): learn its off level while it is off", request: "learn")))
            }
            do {
                let learner = try OffLevelLearner(settings: configured.state, rate: rate, seconds: seconds)
                learning = Learning(learner: learner, rate: rate, atStart: atStart, seconds: seconds, reply: reply)
                watched.withLock { $0.learning = true }
            } catch {
                reply(.failure(ProtocolError("bad-field", "\(error)", request: "learn")))
            }
        }
    }

    /// One sample for the learner (on the queue).
    func learn(from acceleration: Vector3, at t: Double) {
        guard var current = learning else { return }
        switch current.learner.append(acceleration, at: t) {
        case .learning:
            learning = current
        case .ran(let rms, _) where current.atStart:
            if !current.waitSaid {
                logger.notice("the machine runs (\(fixed(rms, 3)) g, over running-threshold \(configured.state.running) g): learning its off level waits for \(current.seconds) s at rest (said once)")
                current.waitSaid = true
            }
            if let fresh = try? OffLevelLearner(settings: configured.state, rate: current.rate, seconds: current.seconds) { current.learner = fresh }
            learning = current
        case .ran(let rms, let time):
            finishLearning(.failure(ProtocolError("machine-running", "the machine ran while its off level was learned (\(fixed(rms, 3)) g at t = \(fixed(time, 1)) s on the frames' clock, over running-threshold \(configured.state.running) g): learn it while the machine is off", request: "learn")))
        case .learned(let level):
            configured.state = level.settings
            checkedAgainst.withLock { $0.state = level.settings }
            rebuild()
            logger.notice("learned the machine's off level: \(fixed(level.offLevel, 4)) g over \(level.blocks) quarter-second blocks; idle-threshold \(fixed(level.settings.idle, 4)) g, running-threshold \(fixed(level.settings.running, 4)) g until a reload (write them in [vibration] to keep them)")
            finishLearning(.success(level))
        }
    }

    func finishLearning(_ result: Result<LearnedLevel, ProtocolError>) {
        let reply = learning?.reply
        learning = nil
        watched.withLock { $0.learning = false }
        reply?(result)
    }

    static func rateChanged(from old: Double, to new: Double) -> ProtocolError {
        ProtocolError("rate-changed", "the chip's rate changed from \(old) to \(new) Hz while the off level was learned: learn it again", request: "learn")
    }
}
