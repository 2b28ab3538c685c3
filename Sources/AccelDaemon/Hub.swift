// SPDX-License-Identifier: Apache-2.0
import AccelDriver
import AccelMotion
import AccelProtocol
#if canImport(Glibc)
import Glibc
#endif
import Logging
import NIOCore

/// What clients are told about the device.
struct DeviceInfo: Sendable {
    /// The part (LIS302DL, LIS3DH, ...).
    var chip: String
    var location: String
    var range: Int
    var rate: Int
    var mode: String
    /// Output bits per axis in `mode`.
    var resolution: Int
    /// The FIFO watermark in samples (0: read sample by sample); nil on
    /// parts without a FIFO.
    var fifo: Int?
    var state = "ok"
    var message: String?

    init(chip: String, location: String, configuration: DeviceConfiguration, profile: ChipProfile?, state: String) {
        self.chip = chip
        self.location = location
        self.range = configuration.range
        self.rate = configuration.rate
        self.mode = configuration.mode ?? "unknown"
        self.resolution = 0
        self.state = state
        update(configuration, profile: profile)
    }

    /// Range, rate, mode and FIFO as now configured.
    mutating func update(_ configuration: DeviceConfiguration, profile: ChipProfile?) {
        range = configuration.range
        rate = configuration.rate
        let mode = profile?.mode(named: configuration.mode)
        self.mode = mode?.name ?? configuration.mode ?? "unknown"
        resolution = mode?.resolutionBits ?? 0
        fifo = profile?.fifo == nil ? nil : configuration.fifoWatermark
    }

    func json(class name: String = "device") -> String {
        var line = JSONLine(class: name)
        fill(&line)
        return line.line
    }

    func fill(_ line: inout JSONLine) {
        line.add("chip", chip)
        line.add("location", location)
        line.add("range", range)
        line.add("rate", rate)
        line.add("mode", mode)
        line.add("resolution", resolution)
        if let fifo { line.add("fifo", fifo) }
        line.add("state", state)
        if let message { line.add("message", message) }
    }
}

/// One connected client. Confined to the hub's event loop.
final class Session: @unchecked Sendable {
    let id: Int
    let channel: Channel
    var streams: Set<StreamName> = []
    var fields = FrameFields.all
    /// Deliver every `decimation`-th sample: seq ≡ `phase` (mod `decimation`).
    /// Clients at one rate get different phases, so that a crowd of them
    /// does not all write on the same tick (64 at 50 Hz put p99 past 2 ms).
    var decimation: UInt64 = 1
    var phase: UInt64 = 0
    /// The frame rate the client asked for (nil: every sample), kept so
    /// that a change of the chip's rate keeps the client's rate.
    var requestedRate: Double?
    /// How late, in ms, this client's frames may arrive (nil: at once).
    var latency: Double?
    var reference: Attitude?
    var credentials: PeerCredentials?
    var dropped = 0
    var totalDropped = 0
    var stuckSince: UInt64?
    var needsFlush = false

    init(id: Int, channel: Channel) {
        self.id = id
        self.channel = channel
    }

    /// Decimation and phase for the chip's rate `odr`.
    func decimate(for odr: Double) {
        decimation = requestedRate.map { UInt64(max(1, (odr / $0).rounded())) } ?? 1
        phase = UInt64(id) % decimation
    }
}

/// The peer of a Unix socket, from SO_PEERCRED. Laid out as struct ucred.
public struct PeerCredentials: Sendable, Equatable {
    public let pid: Int32
    public let uid: UInt32
    public let gid: UInt32
    public init(pid: Int32, uid: UInt32, gid: UInt32) {
        self.pid = pid
        self.uid = uid
        self.gid = gid
    }
}

/// SO_PEERCRED (asm-generic/socket.h); Glibc's module hides it behind _GNU_SOURCE.
let peerCredentialsOption: Int32 = 17

/// Subscriptions, decimation, bounded per-client queues, the latest frame
/// for polling, and the requests. Confined to its event loop: every method
/// runs there (the sampler hands frames over with `execute`), so it needs
/// no locks, and a slow client can never hold up the sampler.
final class Hub: @unchecked Sendable {
    let eventLoop: EventLoop
    let sampler: Sampler
    let socket: SocketSettings
    let calibrationStore: CalibrationStore
    /// Decides whether a peer may change the device.
    let isPrivileged: @Sendable (PeerCredentials) -> Bool
    let notify: @Sendable (String) -> Void
    private let logger = Logger(label: "acceld.server")
    private let startedAt = MonotonicTime.now()
    private var sessions: [Int: Session] = [:]
    private var nextID = 1
    private var latest: Frame?
    /// The orientation decided so far, for new watchers (gpsd likewise
    /// answers WATCH with the current state).
    private var orientation = "unknown"
    var device: DeviceInfo

    init(eventLoop: EventLoop, sampler: Sampler, device: DeviceInfo, socket: SocketSettings,
         calibrationStore: CalibrationStore, isPrivileged: @escaping @Sendable (PeerCredentials) -> Bool,
         notify: @escaping @Sendable (String) -> Void) {
        self.eventLoop = eventLoop
        self.sampler = sampler
        self.device = device
        self.socket = socket
        self.calibrationStore = calibrationStore
        self.isPrivileged = isPrivileged
        self.notify = notify
    }

    var clientCount: Int { sessions.count }

    // MARK: Connections

    /// Registers a new client, or refuses it when the daemon is full. Only
    /// registers: a write to a client that already hung up closes its
    /// channel at once (re-entrantly), and its session must exist by then to
    /// be removed, or it would leak (the connection-storm test found that).
    func connect(_ channel: Channel) -> Session? {
        eventLoop.preconditionInEventLoop()
        let session = Session(id: nextID, channel: channel)
        nextID += 1
        guard sessions.count < socket.maxClients else {
            write(ProtocolError("too-many-clients", "acceld serves at most \(socket.maxClients) clients ([socket] max-clients); try again later").json, to: session)
            channel.writeAndFlush(channel.allocator.buffer(capacity: 0)).whenComplete { _ in channel.close(promise: nil) }
            return nil
        }
        sessions[session.id] = session
        return session
    }

    /// Sends hello and asks the kernel who the peer is.
    func greet(_ session: Session) {
        let channel = session.channel
        var hello = JSONLine(class: "hello")
        hello.add("protocol", protocolVersion)
        hello.add("version", acceldVersion)
        var info = JSONLine()
        device.fill(&info)
        hello.addRaw("device", info.line)
        write(hello.line, to: session)
        flush()
        if let provider = channel as? SocketOptionProvider {
            // SO_PEERCRED fills a struct ucred { pid_t; uid_t; gid_t },
            // which PeerCredentials mirrors field for field.
            let future: EventLoopFuture<PeerCredentials> = provider.unsafeGetSocketOption(
                level: SocketOptionLevel(SOL_SOCKET), name: SocketOptionName(peerCredentialsOption))
            future.whenSuccess { session.credentials = $0 }
        }
        status()
    }

    func disconnect(_ session: Session) {
        sessions[session.id] = nil
        status()
        if session.latency != nil { latencyChanged() }
    }

    /// The FIFO watermark follows the most demanding client: the smallest
    /// latency any watching client allows; a watcher that allows none (or
    /// no watcher at all) keeps samples coming one by one.
    private func latencyChanged() {
        let watchers = sessions.values.filter { !$0.streams.isEmpty }
        let allowed: Double? = watchers.isEmpty || watchers.contains { $0.latency == nil } ? nil : watchers.compactMap(\.latency).min()
        let box = UncheckedBox(self)
        sampler.queue.async { [sampler] in
            do {
                let watermark = try sampler.allowLatency(milliseconds: allowed)
                box.value.eventLoop.execute { if box.value.device.fifo != nil { box.value.device.fifo = watermark } }
            } catch {
                box.value.logger.error("could not change the FIFO watermark: \(error)")
            }
        }
    }

    /// systemd's STATUS= line changed; sent by `publishStatus`, at most once
    /// a second (a connection storm would otherwise send two per client).
    private var statusChanged = true

    private func status() { statusChanged = true }

    private func notifyStatus() {
        guard statusChanged else { return }
        statusChanged = false
        notify("STATUS=\(device.state == "ok" ? "sampling" : device.state) \(device.chip) at \(device.rate) Hz, ±\(device.range) g; \(sessions.count) client\(sessions.count == 1 ? "" : "s")")
    }

    // MARK: Output

    func write(_ line: String, to session: Session) { write(Array(line.utf8), to: session) }

    func write(_ line: [UInt8], to session: Session) {
        write(buffer: lineBuffer(line, session.channel.allocator), to: session)
    }

    /// A line and its newline in a buffer.
    private func lineBuffer(_ line: [UInt8], _ allocator: ByteBufferAllocator) -> ByteBuffer {
        var buffer = allocator.buffer(capacity: line.count + 1)
        buffer.writeBytes(line)
        buffer.writeInteger(UInt8(ascii: "\n"))
        return buffer
    }

    /// Queues a line for a client, or counts it as dropped if the client's
    /// buffer is full (it is told how many on its next delivered message).
    func write(buffer: ByteBuffer, to session: Session) {
        let channel = session.channel
        guard channel.isWritable else {
            session.dropped += 1
            session.totalDropped += 1
            if session.stuckSince == nil { session.stuckSince = MonotonicTime.now() }
            return
        }
        session.stuckSince = nil
        if session.dropped > 0 {
            var notice = JSONLine(class: "dropped")
            notice.add("count", session.dropped)
            notice.add("total", session.totalDropped)
            session.dropped = 0
            channel.write(lineBuffer(notice.lineBytes, channel.allocator), promise: nil)
        }
        channel.write(buffer, promise: nil)
        session.needsFlush = true
    }

    func flush() {
        let now = MonotonicTime.now()
        for session in sessions.values {
            if session.needsFlush {
                session.needsFlush = false
                session.channel.flush()
            }
            if let since = session.stuckSince, Double(now - since) / 1e9 > socket.clientStuckSeconds {
                logger.notice("client \(session.id) has not read for \(socket.clientStuckSeconds) s: disconnecting it")
                sessions[session.id] = nil
                session.channel.close(promise: nil)
            }
        }
    }

    /// Frames from one FIFO read: one flush (one write per client) for all.
    func publish(_ batch: [Delivery]) {
        for delivery in batch { publish(delivery.frame, delivery.events, flushing: false) }
        flush()
    }

    func publish(_ frame: Frame, _ events: [MotionEvent], flushing: Bool = true) {
        latest = frame
        for case .orientation(let change) in events { orientation = change.orientation.rawValue }
        // Encoded into one buffer per set of fields, shared by every client
        // that wants those fields (NIO buffers are copy-on-write).
        var encoded: [FrameFields: ByteBuffer] = [:]
        for session in sessions.values {
            if session.streams.contains(.frames) && frame.seq % session.decimation == session.phase {
                if let reference = session.reference {
                    write(frame.jsonBytes(fields: session.fields, reference: reference), to: session)
                } else if let cached = encoded[session.fields] {
                    write(buffer: cached, to: session)
                } else {
                    let buffer = lineBuffer(frame.jsonBytes(fields: session.fields), session.channel.allocator)
                    encoded[session.fields] = buffer
                    write(buffer: buffer, to: session)
                }
            }
            for event in events where session.streams.contains(StreamName(rawValue: event.className)!) {
                write(event.json, to: session)
            }
        }
        if flushing { flush() }
    }

    func publish(_ event: DeviceEvent) {
        device.state = [.lost, .stalled, .wrongPart, .dataReadyStuck].contains(event.state) ? event.state.rawValue : "ok"
        device.message = event.message
        var line = JSONLine(class: "device")
        device.fill(&line)
        line.add("event", event.state.rawValue)
        for session in sessions.values where session.streams.contains(.device) { write(line.line, to: session) }
        flush()
        status()
    }

    /// Every second: systemd's STATUS=, and `status` to the clients watching it.
    func publishStatus() {
        notifyStatus()
        let watchers = sessions.values.filter { $0.streams.contains(.status) }
        guard !watchers.isEmpty else { return }
        sampler.queue.async { [self] in
            let counters = sampler.counters
            eventLoop.execute { [self] in
                let line = statusJSON(counters)
                for session in watchers { write(line, to: session) }
                flush()
            }
        }
    }

    func goodbye(_ reason: String) {
        var line = JSONLine(class: "goodbye")
        line.add("reason", reason)
        for session in sessions.values { write(line.line, to: session) }
        flush()
    }

    func closeAll() -> EventLoopFuture<Void> {
        let closes = sessions.values.map { $0.channel.close() }
        sessions.removeAll()
        return EventLoopFuture.andAllComplete(closes, on: eventLoop)
    }

    private func statusJSON(_ counters: Sampler.Counters) -> String {
        var line = JSONLine(class: "status")
        line.add("uptime", Double(MonotonicTime.now() - startedAt) / 1e9, decimals: 3)
        line.add("clients", sessions.count)
        var c = JSONLine()
        c.add("published", counters.published)
        c.add("emptyReads", counters.emptyReads)
        c.add("overruns", counters.overruns)
        c.add("lost", counters.lost)
        c.add("busErrors", counters.busErrors)
        c.add("recoveries", counters.recoveries)
        c.add("reconfigurations", counters.reconfigurations)
        c.add("wakes", counters.wakes)
        c.add("impossibleReady", counters.impossibleReady)
        line.addRaw("counters", c.line)
        var d = JSONLine()
        device.fill(&d)
        line.addRaw("device", d.line)
        return line.line
    }

    // MARK: Requests

    func handle(_ bytes: ArraySlice<UInt8>, from session: Session) {
        let request: Request
        do {
            request = try Request(parsing: bytes)
        } catch {
            write(error.json, to: session)
            flush()
            return
        }
        if request.isPrivileged {
            guard let credentials = session.credentials, isPrivileged(credentials) else {
                let who = session.credentials.map { "uid \($0.uid)" } ?? "an unidentified peer"
                reply(ProtocolError("not-permitted", "\(request.className) changes the device: allowed to root, the daemon's user and the privileged group ([daemon] privileged-group), not to \(who)", request: request.className).json, session)
                return
            }
        }
        switch request {
        case .watch(let streams, let rate, let fields, let latency):
            session.streams = streams
            session.fields = fields
            let odr = Double(device.rate)
            session.requestedRate = rate
            session.latency = latency
            session.decimate(for: odr)
            var line = JSONLine(class: "watch")
            line.addRaw("streams", JSONLine.array(streams.map(\.rawValue).sorted()))
            line.add("rate", odr / Double(session.decimation), decimals: 3)
            line.addRaw("fields", JSONLine.array(FrameFields.names.filter { fields.contains($0.1) }.map(\.0)))
            if let latency { line.add("latency", latency, decimals: 1) }
            if streams.contains(.orientation) { line.add("orientation", orientation) }
            reply(line.line, session)
            latencyChanged()
        case .unwatch(let streams):
            session.streams.subtract(streams ?? Set(StreamName.allCases))
            var line = JSONLine(class: "watch")
            line.addRaw("streams", JSONLine.array(session.streams.map(\.rawValue).sorted()))
            reply(line.line, session)
            latencyChanged()
        case .poll:
            var line = JSONLine(class: "poll")
            line.addRaw("frame", latest.map { $0.json(fields: session.fields, reference: session.reference) } ?? "null")
            reply(line.line, session)
        case .status:
            sampler.queue.async { [self] in
                let counters = sampler.counters
                eventLoop.execute { [self] in reply(statusJSON(counters), session) }
            }
        case .device:
            reply(device.json(), session)
        case .zero(let reset):
            guard reset || latest != nil else {
                reply(ProtocolError("no-data", "no sample yet to take as the reference; try again in a moment", request: "zero").json, session)
                return
            }
            session.reference = reset ? nil : latest!.attitude
            var line = JSONLine(class: "zero")
            line.add("pitch", (session.reference?.pitch ?? 0) * 180 / .pi, decimals: 2)
            line.add("roll", (session.reference?.roll ?? 0) * 180 / .pi, decimals: 2)
            reply(line.line, session)
        case .configure(let range, let rate, let mode, let tunables):
            let wanted = DeviceConfiguration(range: range ?? device.range, rate: rate ?? device.rate, mode: mode ?? device.mode)
            let changesDevice = range != nil || rate != nil || mode != nil
            onSampler(session, "configure") { [self] in
                if !tunables.isEmpty {
                    var configuration = Configuration()
                    configuration.motion = sampler.settings
                    if let reason = configuration.applyTunables(tunables) { throw ProtocolError("bad-field", reason) }
                    sampler.update(settings: configuration.motion)
                }
                if changesDevice { try sampler.reconfigure(to: wanted) }
                let applied = sampler.configuration
                return { [self] in
                    guard changesDevice else {
                        var line = JSONLine(class: "configured")
                        line.addRaw("tunables", "{" + tunables.sorted { $0.key < $1.key }
                            .map { JSONLine.quoted($0.key) + ":" + JSONLine.quoted($0.value) }.joined(separator: ",") + "}")
                        reply(line.line, session)
                        return
                    }
                    device.update(applied, profile: ChipProfile.named(device.chip))
                    for each in sessions.values { each.decimate(for: Double(wanted.rate)) }
                    var line = JSONLine(class: "device")
                    device.fill(&line)
                    line.add("event", "configured")
                    reply(line.line, session)
                    for other in sessions.values where other !== session && other.streams.contains(.device) { write(line.line, to: other) }
                    flush()
                    status()
                }
            }
        case .selftest:
            onSampler(session, "selftest") { [self] in
                let report = try sampler.selfTest()
                return { [self] in reply(selfTestJSON(report), session) }
            }
        case .calibrateSet(let calibration):
            apply(calibration, for: session)
        case .calibrateReset:
            apply(.identity, for: session)
        case .calibrateFlat(let seconds):
            calibrateFlat(seconds: seconds, for: session)
        }
    }

    private func reply(_ line: String, _ session: Session) {
        write(line, to: session)
        flush()
    }

    /// Runs `work` on the sampler's queue (it owns the chip); its result
    /// runs back here. Errors become `device-error` replies.
    private func onSampler(_ session: Session, _ name: String, _ work: @escaping () throws -> (() -> Void)) {
        let box = UncheckedBox(work)
        sampler.queue.async { [self] in
            do {
                let then = UncheckedBox(try box.value())
                eventLoop.execute { then.value() }
            } catch {
                let refusal = (error as? ProtocolError).map { ProtocolError($0.code, $0.message, request: name) }
                    ?? ProtocolError("device-error", "\(error)", request: name)
                eventLoop.execute { [self] in reply(refusal.json, session) }
            }
        }
    }

    private func apply(_ calibration: Calibration, for session: Session) {
        let store = calibrationStore
        onSampler(session, "calibrate") { [self] in
            try store.save(calibration)
            sampler.calibration = calibration
            return { [self] in reply(calibrationJSON(calibration), session) }
        }
    }

    /// Averages `seconds` of chip-axis readings with the board flat (+Z up
    /// in the board's axes) and still, and takes the difference from 1 g up
    /// as the offset.
    private func calibrateFlat(seconds: Double, for session: Session) {
        let needed = max(1, Int(seconds * Double(device.rate)))
        let store = calibrationStore
        sampler.queue.async { [self] in
            var sum = Vector3.zero, sumSquares = 0.0, count = 0
            let matrix = sampler.mountMatrix
            let scale = sampler.calibration.scale
            sampler.collect { [self] g in
                sum += g
                sumSquares += g.magnitude * g.magnitude
                count += 1
                guard count >= needed else { return false }
                let mean = sum / Double(count)
                let spread = (max(sumSquares / Double(count) - mean.magnitude * mean.magnitude, 0)).squareRoot()
                guard spread < 0.05 else {
                    eventLoop.execute { [self] in
                        reply(ProtocolError("moving", "the board moved during calibration (|a| varied by \(fixed(spread, 3)) g RMS); put it flat and still, and try again", request: "calibrate").json, session)
                    }
                    return true
                }
                // Board +Z up, seen in the chip's axes: column 3 of the matrix.
                let up = Vector3(matrix.rows.0.z, matrix.rows.1.z, matrix.rows.2.z)
                let calibration = Calibration(offset: mean - up, scale: scale)
                do {
                    try store.save(calibration)
                    sampler.calibration = calibration
                    eventLoop.execute { [self] in reply(calibrationJSON(calibration), session) }
                } catch {
                    let message = "\(error)"
                    eventLoop.execute { [self] in reply(ProtocolError("device-error", message, request: "calibrate").json, session) }
                }
                return true
            }
        }
    }

    private func calibrationJSON(_ calibration: Calibration) -> String {
        var line = JSONLine(class: "calibration")
        line.add("offset", calibration.offset, decimals: 4)
        line.add("scale", calibration.scale, decimals: 4)
        line.add("file", calibrationStore.path)
        return line.line
    }

    private func selfTestJSON(_ report: SelfTestReport) -> String {
        var line = JSONLine(class: "selftest")
        line.add("passed", report.passed)
        line.add("range", report.range)
        line.add("mode", report.mode)
        let axes = report.axes.map { r -> String in
            var a = JSONLine()
            a.add("axis", r.axis.rawValue)
            a.add("delta", r.delta, decimals: 1)
            a.add("min", r.limits.lowerBound, decimals: 1)
            a.add("max", r.limits.upperBound, decimals: 1)
            a.add("passed", r.passed)
            a.add("diagnosis", r.diagnosis)
            return a.line
        }
        line.addRaw("axes", "[" + axes.joined(separator: ",") + "]")
        return line.line
    }
}

/// Carries a non-Sendable closure between the hub's loop and the sampler's
/// queue; each side only touches what it owns.
struct UncheckedBox<T>: @unchecked Sendable {
    let value: T
    init(_ value: T) { self.value = value }
}

public let acceldVersion = "0.2.0"
