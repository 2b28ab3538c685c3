// SPDX-License-Identifier: Apache-2.0
import AccelCore
import AccelMotion
import AccelProtocol
import AccelVibration
import Dispatch
import Logging
import Synchronization

/// The vibration analysis for the clients that watch `vibration` or
/// `machine` (docs/VIBRATION.md), on a queue of its own: the sampler's
/// thread only copies each frame's acceleration into a batch for it. One
/// analyzer per set of windows the clients asked for, each fed every
/// sample; a gap in the samples (lost ones, a sleep) starts every window
/// again, as would a change of rate. The machine's state is judged on
/// quarter-second blocks in every analyzer alike; its changes are said
/// from the default windows' (one second, half overlapped).
/// (Unchecked: the analyzers and the clients are the queue's alone; the
/// sampler's thread reads `watched`, the control side `checkedAgainst`,
/// each under its lock.)
final class VibrationService: @unchecked Sendable {
    let queue = DispatchQueue(label: "acceld.vibration")
    /// Whether anyone watches, or the off level is being learned: the
    /// sampler's thread skips the copy when neither.
    let watched = Mutex((clients: false, learning: false))

    struct Group {
        let watch: VibrationWatch
        let analyzer: VibrationAnalyzer
        var clients: [Subscriber]
    }
    var groups: [Group] = []
    private var machineWatchers: [Subscriber] = []
    /// The configuration's `[vibration]`: what the machine is (with the
    /// idle threshold learned, once it is).
    var configured: VibrationSettings
    /// What the analyzers run with: the configuration's, at the chip's rate and range.
    private var settings: VibrationSettings
    /// The chip's rate and range, and the rate the analyzers were made for.
    private var chip = (rate: 0.0, range: 0)
    private var rate = 0.0
    private var subscribers: [Subscriber] = []
    /// The number of the next sample each window expects; nil before the first.
    private var nextSeq: UInt64?
    /// Times the windows started again after lost samples: in every
    /// message, and the first in the log (a link that loses samples often
    /// would fill it otherwise).
    private var restarts = 0
    let logger = Logger(label: "acceld.vibration")
    /// The off level being learned (VibrationService+Learning).
    var learning: Learning?

    /// The configuration's `[vibration]` for the control side, which checks
    /// a client's windows against it without waiting for this queue.
    let checkedAgainst: Mutex<VibrationSettings>

    init(configured: VibrationSettings) {
        self.configured = configured
        settings = configured
        checkedAgainst = Mutex(configured)
    }

    /// The settings a client's windows make (the configuration's, with the
    /// client's window and overlap).
    static func settings(_ base: VibrationSettings, for watch: VibrationWatch) -> VibrationSettings {
        var settings = base
        settings.window = watch.window
        settings.overlap = watch.overlap
        return settings
    }

    /// The clients from now on, at the chip's `rate` with its `range` (control side).
    func update(_ subscribers: [Subscriber], rate: Double, range: Int) {
        let watching = subscribers.filter { $0.streams.contains(.vibration) || $0.streams.contains(.machine) }
        watched.withLock { $0.clients = !watching.isEmpty }
        queue.async { [self] in
            self.subscribers = watching
            chip = (rate, range)
            rebuild()
            if let learning, learning.rate != rate { finishLearning(.failure(Self.rateChanged(from: learning.rate, to: rate))) }
        }
    }

    /// A reloaded `[vibration]`: every window starts again with it.
    func reconfigure(_ fresh: VibrationSettings) {
        checkedAgainst.withLock { $0 = fresh }
        queue.async { [self] in
            configured = fresh
            rebuild()
        }
    }

    /// The base the router checks a client's windows against (control
    /// side): the configuration's, as the analyzers run it but for the
    /// chip's full scale, which no window's check reads.
    var base: VibrationSettings { checkedAgainst.withLock { $0 } }

    /// One analyzer per set of windows wanted, kept where they still are.
    func rebuild() {
        let rate = chip.rate
        var base = configured
        base.fullScale = Double(chip.range)
        let restart = rate != self.rate || base != settings
        self.rate = rate
        settings = base
        let vibration = subscribers.filter { $0.streams.contains(.vibration) }
        var kept = restart ? [] : groups.map { Group(watch: $0.watch, analyzer: $0.analyzer, clients: []) }
        // The default windows always run while anyone watches: they carry the machine's state.
        let wanted = vibration.map { $0.vibration ?? VibrationWatch() } + (subscribers.isEmpty ? [] : [VibrationWatch()])
        for watch in wanted where !kept.contains(where: { $0.watch.sharesWindows(with: watch) }) {
            do {
                kept.append(Group(watch: watch, analyzer: try VibrationAnalyzer(settings: Self.settings(base, for: watch), rate: rate), clients: []))
            } catch {
                // A rate changed under the configuration (configure): said, not silent.
                logger.warning("no vibration analysis at \(rate) Hz for \(watch.window) s windows: \(error)")
            }
        }
        kept.removeAll { group in !wanted.contains { $0.sharesWindows(with: group.watch) } }
        for client in vibration {
            let watch = client.vibration ?? VibrationWatch()
            if let index = kept.firstIndex(where: { $0.watch.sharesWindows(with: watch) }) {
                kept[index].clients.append(client)
            }
        }
        groups = kept
        machineWatchers = subscribers.filter { $0.streams.contains(.machine) }
        if restart { nextSeq = nil }
    }

    /// Frames from the sampler's thread: their numbers, times and
    /// accelerations, handed to the queue.
    func feed(_ deliveries: some Collection<Delivery>) {
        guard watched.withLock({ $0.clients || $0.learning }) else { return }
        let samples = deliveries.map { ($0.frame.seq, $0.frame.t, $0.frame.acceleration) }
        queue.async { [self] in analyse(samples) }
    }

    private func analyse(_ samples: [(seq: UInt64, t: Double, acceleration: Vector3)]) {
        for sample in samples {
            if let expected = nextSeq, sample.seq != expected {
                for group in groups { group.analyzer.reset() }
                learning?.learner.reset()
                restarts += 1
                if restarts == 1 {
                    logger.notice("vibration windows and averages started again: samples \(expected) to \(sample.seq &- 1) were lost (every message counts the restarts in \"restarts\")")
                }
            }
            nextSeq = sample.seq &+ 1
            if learning != nil { learn(from: sample.acceleration, at: sample.t) }
            for group in groups {
                guard let report = group.analyzer.append(sample.acceleration, at: sample.t) else { continue }
                deliver(report, from: group, endingAt: sample.seq)
            }
        }
    }

    /// A window's report to its group's clients, and the machine's change
    /// of state to its watchers.
    private func deliver(_ report: VibrationReport, from group: Group, endingAt last: UInt64) {
        let first = last &- UInt64(group.analyzer.count - 1)
        if !group.clients.isEmpty {
            var encoded: [VibrationWatch: [UInt8]] = [:]
            for client in group.clients {
                let watch = client.vibration ?? VibrationWatch()
                let line = encoded[watch] ?? Message.vibration(VibrationMessage(report, seq: first, watch: watch, restarts: restarts)).jsonBytes
                encoded[watch] = line
                client.connection.append(line, isReply: false, generation: client.generation)
                client.connection.flush()
            }
        }
        let isMachineGroup = group.watch.sharesWindows(with: VibrationWatch())
        for transition in report.transitions where isMachineGroup {
            let line = Message.machine(MachineMessage(t: transition.time, state: transition.to.rawValue, from: transition.from.rawValue)).jsonBytes
            for client in machineWatchers {
                client.connection.append(line, isReply: false, generation: client.generation)
                client.connection.flush()
            }
        }
    }
}

extension VibrationWatch {
    /// The same windows (length and overlap): one analysis serves both,
    /// whatever bins each client wants of it.
    func sharesWindows(with other: VibrationWatch) -> Bool { window == other.window && overlap == other.overlap }
}
