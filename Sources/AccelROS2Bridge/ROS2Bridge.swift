// SPDX-License-Identifier: Apache-2.0
import AccelClient
import AccelConfiguration
import AccelCore
import AccelProtocol
import AccelROS2
import Dispatch

/// acceld's frames on ROS 2's topics: a standing link to acceld's socket,
/// each frame as sensor_msgs/Imu on the raw topic (and the fused one on a
/// part with a gyroscope), acceld's `status` as diagnostics every period.
/// When acceld goes away the participant stays; the diagnostics say acceld
/// is away (STALE) until it is back, and no sample is made up meanwhile.
///
/// (Unchecked: every stored var belongs to `queue`; the link's updates and
/// the diagnostics' timer both run there.)
public final class ROS2Bridge: @unchecked Sendable {
    private let queue = DispatchQueue(label: "acceld-ros2.bridge")
    private let settings: ROS2Settings
    private let participant: DDSParticipant
    private let raw: ImuPublisher
    private var fused: ImuPublisher?
    private let diagnostics: DiagnosticsPublisher
    private let log: @Sendable (String) -> Void
    private let socketPath: String
    /// Made by `start`, before anything runs on `queue`.
    private var link: DaemonLink!
    private let timer: DispatchSourceTimer
    private var conversion: ImuConversion?
    private var clock = ClockMapping()
    private var report = DiagnosticsReport()
    private var framesSinceReport = 0
    private var awaySince: UInt64?
    private var awayReason = "not connected yet"

    public init(settings: ROS2Settings, domain: Int, socketPath: String, log: @escaping @Sendable (String) -> Void) throws(DDSError) {
        self.settings = settings
        self.log = log
        participant = try DDSParticipant(domain: domain)
        raw = try ImuPublisher(participant: participant, name: settings.qualified(settings.rawTopic), frameID: settings.frameID,
                               qos: settings.imuQoS, log: log)
        diagnostics = try DiagnosticsPublisher(participant: participant, name: settings.qualified(settings.diagnosticsTopic), log: log)
        awaySince = MonotonicTime.now()
        self.socketPath = socketPath
        timer = DispatchSource.makeTimerSource(queue: queue)
    }

    public func start() {
        let queue = queue
        link = DaemonLink(socketPath: socketPath, backoff: .service, label: "acceld-ros2.link") { [weak self] updates in
            guard let bridge = self else { return }
            queue.async { bridge.handle(updates) }
        }
        let rate = settings.rate > 0 ? settings.rate : nil
        link.watch { hello in
            .watch(streams: [.frames], rate: rate, fields: hello.device.gyroscope != nil ? [.acc, .attitude, .rotation] : .acc, latency: nil)
        }
        link.start()
        timer.schedule(deadline: .now() + settings.diagnosticsPeriod, repeating: settings.diagnosticsPeriod)
        timer.setEventHandler { [weak self] in self?.tick() }
        timer.resume()
    }

    public func stop() {
        link.stop()
        timer.cancel()
    }

    private func handle(_ updates: [DaemonLink.Update]) {
        for update in updates {
            switch update {
            case .connected(let hello, let awayFor):
                connected(hello.device, awayFor: awayFor)
            case .message(_, .frame(let frame)):
                publish(frame)
            case .message(_, .status(let status)):
                let header = ROS2Header(stamp: ROS2Time(unixNanoseconds: now()), frameID: "")
                send(report.message(status: status, framesSinceLast: framesSinceReport, header: header))
                framesSinceReport = 0
            case .disconnected(let error):
                awaySince = MonotonicTime.now()
                awayReason = error.description
                log("acceld went away (\(error.description)): the topics stay advertised and resume when it is back")
            default:
                break
            }
        }
    }

    private func connected(_ device: DeviceInfo, awayFor: Double?) {
        awaySince = nil
        let gyroscope = device.gyroscope != nil
        conversion = ImuConversion(frameID: settings.frameID, device: device)
        if gyroscope && fused == nil {
            do {
                fused = try ImuPublisher(participant: participant, name: settings.qualified(settings.fusedTopic), frameID: settings.frameID,
                                         qos: settings.imuQoS, log: log)
            } catch { log("\(settings.qualified(settings.fusedTopic)) cannot be published: \(error)") }
        }
        let topics = [settings.rawTopic] + (gyroscope ? [settings.fusedTopic] : [])
        log((awayFor.map { "acceld is back after \(fixed($0, 1)) s" } ?? "connected to acceld")
            + ": \(device.chip) at \(device.location), \(device.rate) Hz; publishing " + topics.map(settings.qualified).joined(separator: ", ")
            + (gyroscope ? "" : " (no gyroscope: no \(settings.qualified(settings.fusedTopic)); run imu_filter_madgwick on the raw topic)"))
    }

    private func publish(_ frame: FrameMessage) {
        guard let conversion else { return }
        let stamp = ROS2Time(unixNanoseconds: clock.unixNanoseconds(ofMonotonic: frame.t))
        do {
            if let message = conversion.raw(frame, stamp: stamp) { try raw.publish(message) }
            if let fused, let message = conversion.fused(frame, stamp: stamp) { try fused.publish(message) }
        } catch { log("\(error)") }
        framesSinceReport += 1
    }

    /// Each period: the clocks' offset followed, and acceld asked for its
    /// status; while acceld is away, the diagnostics say so themselves.
    private func tick() {
        clock.follow()
        if awaySince == nil, link.send(.status) { return }
        let seconds = Double(MonotonicTime.now() - (awaySince ?? MonotonicTime.now())) / 1e9
        let header = ROS2Header(stamp: ROS2Time(unixNanoseconds: now()), frameID: "")
        send(report.away(for: seconds, reason: awayReason, header: header))
    }

    private func send(_ message: DiagnosticArrayMessage) {
        do { try diagnostics.publish(message) } catch { log("\(error)") }
    }

    private func now() -> Int64 { ClockMapping.measure().monotonic + clock.offset }
}

extension ROS2Settings {
    var imuQoS: DDSWriter.QoS { DDSWriter.QoS(reliable: reliability == .reliable, depth: depth) }
}
