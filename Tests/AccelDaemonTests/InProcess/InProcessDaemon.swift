// SPDX-License-Identifier: Apache-2.0
@testable import AccelConfiguration
@testable import AccelDaemon
import AccelCore
import AccelDriver
import AccelMachine
import AccelMotion
import AccelParts
import AccelProtocol
import Foundation
import TestSupport

/// acceld's control side in the test's process, on a clock the test moves:
/// the hub as the daemon wires it (requests, privileges, subscriptions,
/// the fan-out, the FIFO latency policy, status, stuck clients, goodbye),
/// over a `Sampler` reading a `ChipModel` on `VirtualTime`. No socket,
/// no thread sleeps, no wall-clock deadline: clients are `MemorySink`s,
/// and `run(seconds:)` steps the sampler as its timer would and calls the
/// hub's once-a-second `tick` as the daemon's timer does, on virtual time.
/// Every run is the same run, however busy the host.
final class InProcessDaemon {
    let time = VirtualTime()
    let model: ChipModel
    let sampler: Sampler
    let hub: Hub
    let settings: SocketSettings
    /// Credentials of a client allowed to change the device: the daemon's own user.
    static let owner = PeerCredentials(pid: 1, uid: geteuid(), gid: getegid())
    /// Credentials of a client that is not (nobody).
    static let nobody = PeerCredentials(pid: 2, uid: 65534, gid: 65534)
    private var nextTick: UInt64 = 1_000_000_000
    /// With `interrupt`: what the interrupt thread would wait for next.
    private var edges: InterruptThread.Next?

    enum HarnessError: Error { case noChip }

    /// - Parameters: as acceld's --part, --simulate, --rate/--range and
    ///   the configuration's [socket] and [vibration]; the model has the
    ///   simulated chip's imperfections.
    init(part: ChipProfile = .lis302dl, motion: any MotionSource = MotionScript.rest(), rate: Int = 100, range: Int = 2, mode: String? = nil,
         socket: SocketSettings = SocketSettings(), vibration: VibrationSettings = VibrationSettings(),
         calibrationFile: String = "/nonexistent/calibration.json", interrupt: Bool = false,
         wakeOnMotion: WakeOnMotion? = nil) throws {
        QuietDaemonLogs.install()
        let time = self.time
        let model = ChipModel(profile: part, motion: motion, time: time, imperfections: .board,
                              location: "chip model")
        self.model = model
        let configuration = DeviceConfiguration(range: range, rate: rate, mode: mode, interruptPin: interrupt ? .int1 : nil)
        sampler = Sampler(connect: { try Accelerometer(bus: model, time: time, part: part) },
                          configuration: configuration, settings: MotionSettings(), time: time)
        if interrupt {
            // --interrupt model: the chip model's INT1 paces the reads.
            sampler.interruptSource = { SimulatedInterruptLine(model: model, pin: .int1, time: time) }
        }
        sampler.wakeOnMotion = wakeOnMotion
        try sampler.open()
        if interrupt { edges = InterruptThread.Next(line: sampler.pacing.line, wait: sampler.edgeTimeout) }
        let found = sampler.queue.sync { [sampler] in sampler.snapshot }
        guard let part = found.part else { throw HarnessError.noChip }
        var device = DeviceInfo(chip: part.chip, location: part.location, configuration: found.configuration,
                                profile: part.profile, state: "ok")
        device.gyroscope = found.gyroscopeRange
        settings = socket
        let privilege = try Privilege(groupName: "")
        hub = Hub(sampler: sampler, device: device, socket: socket, vibration: vibration,
                  calibrationStore: CalibrationStore(path: calibrationFile),
                  isPrivileged: { privilege.allows($0) }, notify: { _ in }, now: { time.nanoseconds })
        sampler.output = { [hub] in hub.publish($0) }
    }

    deinit {
        hub.control.sync { hub.closeAll(saying: "the test is over") }
        sampler.output = { _ in }  // the hub holds the sampler, whose output held the hub
    }

    /// A client connects (its `session` is nil if it was refused; its sink then holds the refusal).
    func connect(as credentials: PeerCredentials = owner) -> InProcessClient {
        let sink = MemorySink(bufferBytes: settings.clientBufferBytes, now: { [time] in time.nanoseconds })
        let session = hub.control.sync { hub.open(sink, credentials: credentials) }
        return InProcessClient(daemon: self, sink: sink, session: session)
    }

    /// Samples for `seconds` of the chip's time: each step on the sampler's
    /// queue, as its timer would run it, then the clock moved by the delay
    /// it asked for (with `interrupt`, as the interrupt thread runs it: the
    /// model's line waited on, which moves the clock); the hub ticks every second; what the vibration and
    /// control queues were handed meanwhile (windows to analyse, a finished
    /// calibration) runs before the next step.
    func run(seconds: Double) {
        let end = time.nanoseconds + UInt64(seconds * 1e9)
        while time.nanoseconds < end {
            if let next = edges, let line = next.line {
                let waited = Result { try line.wait(nanoseconds: next.wait) }
                edges = sampler.queue.sync { sampler.interruptStep(waited) }
            } else {
                let delay = sampler.queue.sync { sampler.step() }
                time.sleep(nanoseconds: max(delay, 1000))
            }
            hub.vibration.queue.sync {}  // its windows analysed, their messages sent
            hub.control.sync {}  // what a step handed the control side, done
            hub.tick(upTo: time.nanoseconds, next: &nextTick)
        }
    }

    /// Whatever the control side does next, done (Hub.settle).
    func settle() { hub.settle() }

    /// SIGTERM's shutdown, as the daemon runs it (`Hub.shutDown`): requests stop, the sampler stops, goodbye.
    func stop() { hub.shutDown(powerDown: false) }
}

/// One client of an `InProcessDaemon`: sends request lines, reads the
/// lines it was sent, as JSON objects (what a client on the socket parses).
/// Nothing waits: what the daemon has not sent yet is not there (nil).
final class InProcessClient {
    unowned let daemon: InProcessDaemon
    let sink: MemorySink
    let session: Session?
    private var unread: [[UInt8]] = []

    init(daemon: InProcessDaemon, sink: MemorySink, session: Session?) {
        self.daemon = daemon
        self.sink = sink
        self.session = session
    }

    /// Bytes as the client wrote them (a newline ends each request).
    func sendBytes(_ bytes: [UInt8]) {
        guard let session else { return }
        daemon.hub.control.sync { daemon.hub.received(bytes, from: session) }
        daemon.settle()
    }

    func send(_ text: String) { sendBytes(Array(text.utf8)) }

    /// The next line the client was sent, if one was.
    func readLine() -> String? {
        unread += sink.takeLines()
        guard !unread.isEmpty else { return nil }
        return String(decoding: unread.removeFirst(), as: UTF8.self)
    }

    /// The next message, if one was sent.
    func readMessage() -> [String: Any]? {
        guard let line = readLine() else { return nil }
        return (try? JSONSerialization.jsonObject(with: Data(line.utf8))) as? [String: Any] ?? ["class": "unparsable", "line": line]
    }

    /// Every message sent and not yet read.
    func readAll() -> [[String: Any]] {
        var all: [[String: Any]] = []
        while let message = readMessage() { all.append(message) }
        return all
    }

    /// The next message of class `name`, skipping others.
    func next(_ name: String) -> [String: Any]? {
        while let message = readMessage() { if message["class"] as? String == name { return message } }
        return nil
    }

    /// Sends a request; the first message after it that is not streamed (its reply).
    @discardableResult
    func request(_ json: String) -> [String: Any]? {
        send(json + "\n")
        let streamed: Set<String> = ["frame", "orientation", "shake", "freefall", "movement", "tap", "dropped"]
        while let message = readMessage() {
            if let name = message["class"] as? String, !streamed.contains(name) { return message }
        }
        return nil
    }

    func hangUp() {
        guard let session else { return }
        daemon.hub.control.sync { daemon.hub.disconnect(session) }
    }
}
