// SPDX-License-Identifier: Apache-2.0
import AccelConfiguration
import AccelCore
import AccelDriver
import AccelParts
import AccelProtocol
import AccelVibration

/// Requests, from parsing to reply: the privilege check, then each class
/// to its handler. Runs on the control queue; what touches the chip or the
/// sampler's state is a message to the sampler's queue, run in turn with
/// the reads (`hub.onSampler`), whose reply is sent when its result comes
/// back; files are written here, never there.
final class RequestRouter: @unchecked Sendable {
    private unowned let hub: Hub
    private let calibrationStore: CalibrationStore
    /// Decides whether a peer may change the device.
    private let isPrivileged: @Sendable (PeerCredentials) -> Bool

    init(hub: Hub, calibrationStore: CalibrationStore, isPrivileged: @escaping @Sendable (PeerCredentials) -> Bool) {
        self.hub = hub
        self.calibrationStore = calibrationStore
        self.isPrivileged = isPrivileged
    }

    private var sampler: any DeviceSampler { hub.sampler }

    func handle(_ bytes: [UInt8], from session: Session) {
        let request: Request
        do {
            request = try Request(parsing: bytes)
        } catch {
            return session.reply(.error(error))
        }
        if request.isPrivileged {
            guard let credentials = session.credentials, isPrivileged(credentials) else {
                let who = session.credentials.map { "uid \($0.uid)" } ?? "an unidentified peer"
                return session.reply(.error(ProtocolError("not-permitted", "\(request.className) changes the device: allowed to root, the daemon's user and the privileged group ([daemon] privileged-group), not to \(who)", request: request.className)))
            }
        }
        switch request {
        case .watch(let streams, let rate, let fields, let latency, let vibration):
            watch(session, streams: streams, rate: rate, fields: fields, latency: latency, vibration: vibration)
        case .unwatch(let streams):
            session.streams.subtract(streams ?? Set(StreamName.allCases))
            session.reply(.watch(WatchReply(streams: session.streams)), endsStreams: true)
            hub.subscriptionsChanged()
            hub.latencyChanged()
        case .poll:
            session.reply(.poll(hub.fanout.latest.map { FrameMessage($0, fields: session.fields, reference: session.reference) }))
        case .status:
            onSampler(session, "status", { [sampler] in sampler.counters }) { [hub] counters in
                session.reply(.status(hub.report(counters)))
            }
        case .device:
            session.reply(.device(hub.device))
        case .zero(let reset):
            zero(session, reset: reset)
        case .configure(let range, let rate, let mode, let tunables):
            configure(session, range: range, rate: rate, mode: mode, tunables: tunables)
        case .selftest:
            onSampler(session, "selftest", { [sampler] in
                guard case .selfTest(let report, let gyroscope) = try sampler.handle(.selfTest) else { throw SourceReply.Unexpected(request: "selftest") }
                return SelfTestReply(report, gyroscope: gyroscope)
            }) { session.reply(.selftest($0)) }
        case .calibrateSet(let calibration):
            apply(calibration, for: session)
        case .calibrateReset:
            apply(.identity, for: session)
        case .calibrateFlat(let seconds):
            calibrateFlat(seconds: seconds, for: session)
        case .learn(let seconds):
            learn(seconds: seconds, for: session)
        }
    }

    /// The vibration service learns the machine's off level on its own
    /// queue; the reply comes back here when it is done (or refused).
    private func learn(seconds: Double, for session: Session) {
        let control = hub.control
        hub.vibration.learn(seconds: seconds, rate: Double(hub.device.rate)) { result in
            control.async {
                switch result {
                case .success(let level):
                    session.reply(.learned(LearnedMessage(offLevel: level.offLevel, blocks: level.blocks,
                                                          idle: level.settings.idle, running: level.settings.running)))
                case .failure(let error):
                    session.reply(.error(error))
                }
            }
        }
    }

    private func watch(_ session: Session, streams: Set<StreamName>, rate: Double?, fields: FrameFields, latency: Double?,
                       vibration: VibrationWatch?) {
        let odr = Double(hub.device.rate)
        if streams.contains(.vibration) {
            // Refused before anything changes: the windows must suit the chip's rate.
            do {
                try VibrationService.settings(hub.vibration.base, for: vibration ?? VibrationWatch()).validate(rate: odr)
            } catch {
                return session.reply(.error(ProtocolError("bad-field", "\"vibration\": \(error) (the chip runs at \(hub.device.rate) Hz)", request: "watch")))
            }
        }
        session.vibration = streams.contains(.vibration) ? vibration ?? VibrationWatch() : nil
        let ending = !session.streams.subtracting(streams).isEmpty
        session.streams = streams
        session.fields = fields
        session.requestedRate = rate
        session.latency = latency
        session.decimate(for: odr)
        // The reply names the fields frames will carry: no rotation rate
        // from a part without a gyroscope.
        let served = hub.device.gyroscope == nil ? fields.subtracting(.rotation) : fields
        let reply = WatchReply(streams: streams, rate: odr / Double(session.decimation), fields: served, latency: latency,
                               orientation: streams.contains(.orientation) ? hub.fanout.orientation : nil, vibration: session.vibration)
        session.reply(.watch(reply), endsStreams: ending)
        hub.subscriptionsChanged()
        hub.latencyChanged()
    }

    private func zero(_ session: Session, reset: Bool) {
        if reset {
            session.reference = nil
        } else {
            guard let latest = hub.fanout.latest else {
                return session.reply(.error(ProtocolError("no-data", "no sample yet to take as the reference; try again in a moment", request: "zero")))
            }
            session.reference = latest.attitude
        }
        let reference = session.reference ?? .level
        session.reply(.zero(pitch: reference.pitch * 180 / .pi, roll: reference.roll * 180 / .pi))
        hub.subscriptionsChanged()
    }

    private func configure(_ session: Session, range: Int?, rate: Int?, mode: String?, tunables: [String: String]) {
        let device = hub.device
        let wanted = DeviceConfiguration(range: range ?? device.range, rate: rate ?? device.rate, mode: mode ?? device.mode)
        let changesDevice = range != nil || rate != nil || mode != nil
        // One message: the tunables read, changed and written back, then the
        // chip; SIGHUP's reload, also the sampler's, comes before or after.
        onSampler(session, "configure", { [sampler] () throws -> DeviceConfiguration? in
            if !tunables.isEmpty {
                var configuration = Configuration()
                configuration.motion = sampler.settings
                if let reason = configuration.applyTunables(tunables) { throw ProtocolError("bad-field", reason) }
                sampler.update(settings: configuration.motion)
            }
            guard changesDevice else { return nil }
            guard case .configured(let applied) = try sampler.handle(.configure(wanted)) else { throw SourceReply.Unexpected(request: "configure") }
            return applied
        }) { [hub] applied in
            guard let applied else { return session.reply(.configured(tunables: tunables)) }
            // The `device` stream has its one `configured` event from the
            // sampler; the client that asked gets the device as a reply.
            var reply = hub.device
            reply.update(applied, profile: ChipProfile.named(reply.chip))
            reply.event = "configured"
            session.reply(.device(reply))
        }
    }

    /// Runs `work` on the sampler's queue and `then` with its result back
    /// here; an error becomes the reply (`device-error` unless it threw a
    /// ProtocolError of its own). The session's later requests wait for
    /// this reply; a client gone meanwhile gets none.
    private func onSampler<T>(_ session: Session, _ name: String, _ work: @escaping () throws -> T, then: @escaping (T) -> Void) {
        session.awaitingSampler = true
        hub.onSampler(work) { [self] result in
            switch result {
            case .success(let value): then(value)
            case .failure(let error): refuse(session, name, error)
            }
            hub.resume(session)
        }
    }

    /// Runs what touches the disk; its errors become replies.
    private func run(_ session: Session, _ name: String, _ work: () throws -> Void) {
        do {
            try work()
        } catch {
            refuse(session, name, error)
        }
    }

    private func refuse(_ session: Session, _ name: String, _ error: any Error) {
        let refusal = (error as? ProtocolError).map { ProtocolError($0.code, $0.message, request: name) }
            ?? ProtocolError("device-error", "\(error)", request: name)
        session.reply(.error(refusal))
    }

    private func apply(_ calibration: Calibration, for session: Session) {
        run(session, "calibrate") {
            // A client sends the accelerometer's offset and scale: the
            // gyroscope's offset that accelctl calibrate stored stays.
            var calibration = calibration
            if calibration.gyroscopeOffset == nil { calibration.gyroscopeOffset = (try? calibrationStore.load())??.gyroscopeOffset }
            try calibrationStore.save(calibration)
            hub.onSampler { [sampler] in _ = try? sampler.handle(.calibrate(calibration)) }
            // Saved, and the sampler's next message: applied before any later request.
            session.reply(.calibration(CalibrationReply(calibration: calibration, file: calibrationStore.path)))
        }
    }

    /// Measures the offset over `seconds` of readings (FlatCalibration) on
    /// the sampler's thread, where the collector is also installed: the
    /// sampler reads and clears it between two reads. The result is saved
    /// and applied from here.
    private func calibrateFlat(seconds: Double, for session: Session) {
        let (control, rate) = (hub.control, hub.device.rate)
        hub.onSampler { [sampler] in
            let now = sampler.snapshot
            var calibration = FlatCalibration(seconds: seconds, rate: rate, mountMatrix: now.mountMatrix,
                                              scale: now.calibration.scale)
            _ = try? sampler.handle(.collect { [self] g in
                guard let outcome = calibration.add(g) else { return false }
                control.async { [self] in finishFlat(outcome, for: session) }
                return true
            })
        }
    }

    private func finishFlat(_ outcome: FlatCalibration.Outcome, for session: Session) {
        switch outcome {
        case .moved(let spread):
            session.reply(.error(ProtocolError("moving", "the board moved during calibration (|a| varied by \(fixed(spread, 3)) g RMS); put it flat and still, and try again", request: "calibrate")))
        case .calibrated(let result):
            apply(result, for: session)
        }
    }
}

extension SelfTestReply {
    init(_ report: SelfTestReport, gyroscope: GyroscopeSelfTestReport?) {
        let rate = gyroscope.map { gyroscope in
            Gyroscope(passed: gyroscope.passed, range: gyroscope.range, axes: gyroscope.axes.map {
                AxisResult(axis: $0.axis, delta: $0.change, min: $0.limits.lowerBound, max: $0.limits.upperBound,
                           passed: $0.passed, diagnosis: $0.diagnosis)
            })
        }
        self.init(passed: report.passed && rate?.passed != false, range: report.range, mode: report.mode, axes: report.axes.map {
            AxisResult(axis: $0.axis, delta: $0.delta, min: $0.limits.lowerBound, max: $0.limits.upperBound,
                       passed: $0.passed, diagnosis: $0.diagnosis)
        }, gyroscope: rate)
    }
}
