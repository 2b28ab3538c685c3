// SPDX-License-Identifier: Apache-2.0
import AccelConfiguration
import AccelCore
import AccelDriver
import AccelProtocol

/// Requests, from parsing to reply: the privilege check, then each class
/// to its handler. Runs on the hub's queue, which is the sampler's: what
/// touches the chip runs in turn with the reads.
final class RequestRouter {
    private unowned let hub: Hub
    private let calibrationStore: CalibrationStore
    /// Decides whether a peer may change the device.
    private let isPrivileged: @Sendable (PeerCredentials) -> Bool

    init(hub: Hub, calibrationStore: CalibrationStore, isPrivileged: @escaping @Sendable (PeerCredentials) -> Bool) {
        self.hub = hub
        self.calibrationStore = calibrationStore
        self.isPrivileged = isPrivileged
    }

    private var fanout: Fanout { hub.fanout }
    private var sampler: Sampler { hub.sampler }

    func handle(_ bytes: [UInt8], from session: Session) {
        let request: Request
        do {
            request = try Request(parsing: bytes)
        } catch {
            return fanout.reply(.error(error), to: session)
        }
        if request.isPrivileged {
            guard let credentials = session.credentials, isPrivileged(credentials) else {
                let who = session.credentials.map { "uid \($0.uid)" } ?? "an unidentified peer"
                return fanout.reply(.error(ProtocolError("not-permitted", "\(request.className) changes the device: allowed to root, the daemon's user and the privileged group ([daemon] privileged-group), not to \(who)", request: request.className)), to: session)
            }
        }
        switch request {
        case .watch(let streams, let rate, let fields, let latency):
            watch(session, streams: streams, rate: rate, fields: fields, latency: latency)
        case .unwatch(let streams):
            session.streams.subtract(streams ?? Set(StreamName.allCases))
            fanout.reply(.watch(WatchReply(streams: session.streams)), to: session)
            hub.latencyChanged()
        case .poll:
            fanout.reply(.poll(hub.latest.map { FrameMessage($0, fields: session.fields, reference: session.reference) }), to: session)
        case .status:
            fanout.reply(.status(hub.report()), to: session)
        case .device:
            fanout.reply(.device(hub.device), to: session)
        case .zero(let reset):
            zero(session, reset: reset)
        case .configure(let range, let rate, let mode, let tunables):
            configure(session, range: range, rate: rate, mode: mode, tunables: tunables)
        case .selftest:
            run(session, "selftest") {
                fanout.reply(.selftest(SelfTestReply(try sampler.selfTest())), to: session)
            }
        case .calibrateSet(let calibration):
            apply(calibration, for: session)
        case .calibrateReset:
            apply(.identity, for: session)
        case .calibrateFlat(let seconds):
            calibrateFlat(seconds: seconds, for: session)
        }
    }

    private func watch(_ session: Session, streams: Set<StreamName>, rate: Double?, fields: FrameFields, latency: Double?) {
        session.streams = streams
        session.fields = fields
        session.requestedRate = rate
        session.latency = latency
        let odr = Double(hub.device.rate)
        session.decimate(for: odr)
        let reply = WatchReply(streams: streams, rate: odr / Double(session.decimation), fields: fields, latency: latency,
                               orientation: streams.contains(.orientation) ? hub.orientation : nil)
        fanout.reply(.watch(reply), to: session)
        hub.latencyChanged()
    }

    private func zero(_ session: Session, reset: Bool) {
        if reset {
            session.reference = nil
        } else {
            guard let latest = hub.latest else {
                return fanout.reply(.error(ProtocolError("no-data", "no sample yet to take as the reference; try again in a moment", request: "zero")), to: session)
            }
            session.reference = latest.attitude
        }
        let reference = session.reference ?? .level
        fanout.reply(.zero(pitch: reference.pitch * 180 / .pi, roll: reference.roll * 180 / .pi), to: session)
    }

    private func configure(_ session: Session, range: Int?, rate: Int?, mode: String?, tunables: [String: String]) {
        let device = hub.device
        let wanted = DeviceConfiguration(range: range ?? device.range, rate: rate ?? device.rate, mode: mode ?? device.mode)
        let changesDevice = range != nil || rate != nil || mode != nil
        run(session, "configure") {
            if !tunables.isEmpty {
                var configuration = Configuration()
                configuration.motion = sampler.settings
                if let reason = configuration.applyTunables(tunables) { throw ProtocolError("bad-field", reason) }
                sampler.update(settings: configuration.motion)
            }
            guard changesDevice else {
                return fanout.reply(.configured(tunables: tunables), to: session)
            }
            try sampler.reconfigure(to: wanted)
            hub.configured(sampler.configuration)
            var pushed = hub.device
            pushed.event = "configured"
            fanout.send(.device(pushed), to: session, isReply: true)
            fanout.broadcast(.device(pushed)) { $0 !== session && $0.streams.contains(.device) }
            fanout.flush()
        }
    }

    /// Runs what touches the chip or the disk; its errors become replies
    /// (`device-error` unless it threw a ProtocolError of its own).
    private func run(_ session: Session, _ name: String, _ work: () throws -> Void) {
        do {
            try work()
        } catch {
            let refusal = (error as? ProtocolError).map { ProtocolError($0.code, $0.message, request: name) }
                ?? ProtocolError("device-error", "\(error)", request: name)
            fanout.reply(.error(refusal), to: session)
        }
    }

    private func apply(_ calibration: Calibration, for session: Session) {
        run(session, "calibrate") {
            try calibrationStore.save(calibration)
            sampler.calibration = calibration
            fanout.reply(.calibration(CalibrationReply(calibration: calibration, file: calibrationStore.path)), to: session)
        }
    }

    /// Measures the offset over `seconds` of readings (FlatCalibration).
    private func calibrateFlat(seconds: Double, for session: Session) {
        let store = calibrationStore
        let fanout = self.fanout
        var calibration = FlatCalibration(seconds: seconds, rate: hub.device.rate, mountMatrix: sampler.mountMatrix, scale: sampler.calibration.scale)
        let reply: (Message) -> Void = { fanout.reply($0, to: session) }
        sampler.collect { [sampler] g in
            switch calibration.add(g) {
            case nil:
                return false
            case .moved(let spread):
                reply(.error(ProtocolError("moving", "the board moved during calibration (|a| varied by \(fixed(spread, 3)) g RMS); put it flat and still, and try again", request: "calibrate")))
            case .calibrated(let result):
                do {
                    try store.save(result)
                    sampler.calibration = result
                    reply(.calibration(CalibrationReply(calibration: result, file: store.path)))
                } catch {
                    reply(.error(ProtocolError("device-error", "\(error)", request: "calibrate")))
                }
            }
            return true
        }
    }
}

extension SelfTestReply {
    init(_ report: SelfTestReport) {
        self.init(passed: report.passed, range: report.range, mode: report.mode, axes: report.axes.map {
            AxisResult(axis: $0.axis, delta: $0.delta, min: $0.limits.lowerBound, max: $0.limits.upperBound,
                       passed: $0.passed, diagnosis: $0.diagnosis)
        })
    }
}
