// SPDX-License-Identifier: Apache-2.0
#if canImport(Glibc)
import Glibc
#endif
import AccelConfiguration
import AccelCore
import AccelMachine
import AccelDriver
import AccelProtocol
import AccelMotion
import Dispatch
import Logging

/// The running service: the sampler on its own queue, which only samples
/// and publishes; the hub's control queue for clients, requests, status and
/// the watchdog; signals on the main queue; systemd's notify protocol.
/// (Unchecked: its state is set before dispatchMain, then read and changed
/// on the main queue only, where the signal handlers run.)
/// `run()` is the process; `start()` and `stop()` are the same service
/// without the process's signals and exit, which tests run in their own
/// process on a real socket.
/// Here the wiring; the rest, one file each: the sampler for the source
/// (Daemon+Sources; the simulated chip's flaws are ChipModel's `.board`),
/// the socket file (Daemon+Socket), the signals (Daemon+Signals), SIGHUP's
/// reload (Daemon+Reload) and SIGTERM's shutdown (Daemon+Shutdown).
public final class Daemon: @unchecked Sendable {
    public struct Options: Sendable {
        public var configuration: Configuration
        /// The file to re-read on SIGHUP.
        public var configurationPath: String?
        public var source: DeviceSource
        public var faults: [Fault] = []
        /// --loop: a simulated trace plays again from its start each time it ends.
        public var loop = false
        public init(configuration: Configuration, configurationPath: String?, source: DeviceSource) {
            self.configuration = configuration
            self.configurationPath = configurationPath
            self.source = source
        }
    }

    /// Why the daemon could not start, with the exit code to use.
    public struct StartError: Error, CustomStringConvertible {
        public let description: String
        public let exitCode: Int32
    }

    var options: Options
    let logger = Logger(label: "acceld")
    let environment: [String: String]
    let notifier: SystemdNotifier
    var sampler: (any DeviceSampler)!
    /// With --simulate: the chip model (set by `makeSampler`, before the
    /// sampler runs; faults are injected into it) and the trace it plays.
    var chipModel: ChipModel?
    var trace: TraceInfo?
    var hub: Hub!
    var listener: Listener?
    /// The status and watchdog timers, on the control queue.
    var timers: [DispatchSourceTimer] = []
    /// The socket file we created (and must remove); nil when systemd passed it.
    var ownedSocketPath: String?
    var signalSources: [DispatchSourceSignal] = []

    public init(options: Options, environment: [String: String]) {
        self.options = options
        self.environment = environment
        self.notifier = SystemdNotifier(environment: environment)
    }

    /// Starts everything and never returns: SIGTERM or SIGINT end the process.
    public func run() throws -> Never {
        // Before any thread exists, so every thread inherits it.
        Daemon.blockHandledSignals()
        // Before the socket exists: a SIGTERM that follows a client's hello
        // must find its source (the handlers run once dispatchMain starts).
        installSignalHandlers()
        try start()
        dispatchMain()
    }

    /// Opens the chip, listens and starts sampling, then returns: the
    /// sampler, the hub and its timers run on their own queues.
    public func start() throws {
        let configuration = options.configuration
        let time = MonotonicTime()
        let privilege: Privilege
        do { privilege = try Privilege(groupName: configuration.daemon.privilegedGroup) } catch {
            throw StartError(description: "\(error)", exitCode: 78)
        }
        let store = CalibrationStore(path: configuration.daemon.calibrationFile)
        var calibration = Calibration.identity
        do { calibration = try store.load() ?? .identity } catch {
            logger.error("\(error); running uncalibrated")
        }

        let sampler = try makeSampler(time: time)
        self.sampler = sampler
        // Before the loop runs, on its queue as every request is: the
        // correction, set again once the chip is open to reach its driver.
        let correct = {
            _ = try? sampler.handle(.mount(configuration.device.mountMatrix))
            _ = try? sampler.handle(.calibrate(calibration))
        }
        sampler.queue.sync(execute: correct)
        do {
            try sampler.open()
            sampler.queue.sync(execute: correct)
        } catch {
            guard configuration.daemon.waitForDevice, error is BusError else { throw error }
            logger.warning("no device yet (\(error)); waiting for it ([daemon] wait-for-device)")
        }
        let found = sampler.queue.sync { sampler.snapshot }
        var device = DeviceInfo(
            chip: found.part?.chip ?? configuration.device.part ?? "unknown",
            location: found.part?.location ?? options.source.description,
            configuration: found.configuration, profile: found.part == nil ? configuration.device.profile : found.part?.profile,
            state: found.part == nil ? "lost" : "ok")
        if found.part != nil { device.gyroscope = found.gyroscopeRange }
        device.trace = trace

        // A [vibration] section that cannot work at this rate is refused
        // now, not found out by the first client (the defaults are judged
        // per watch: a 1 Hz chip still serves events).
        if configuration.vibration != VibrationSettings() {
            do { try configuration.vibration.validate(rate: Double(device.rate)) } catch {
                throw StartError(description: "[vibration]: \(error) (the chip runs at \(device.rate) Hz)", exitCode: 78)
            }
        }
        let notifier = self.notifier
        let hub = Hub(sampler: sampler, device: device, socket: configuration.socket, vibration: configuration.vibration,
                      calibrationStore: store, isPrivileged: { privilege.allows($0) },
                      notify: { notifier.notify($0) })
        self.hub = hub
        sampler.output = { hub.publish($0) }
        let listener = Listener(descriptor: try listeningSocket(), hub: hub)
        self.listener = listener
        sampler.queue.async {
            _ = try? sampler.handle(.checkGyroscopeAtRest)  // its verdict logged
            sampler.start()
        }
        hub.control.async { listener.start() }
        if let model = chipModel {
            for fault in options.faults { fault.schedule(on: model, queue: sampler.queue) }
        }
        if let trace { announceTraceEnds(trace, on: sampler) }
        if configuration.vibration.state.learnAtStart { learnOffLevelAtStart(hub, rate: Double(device.rate)) }
        repeatOnControlQueue(every: 1_000_000_000) { hub.tick() }
        if let interval = notifier.watchdogInterval {
            // Pinged only when the sampler's queue answers and its last step
            // is recent: a hung sampler lets systemd restart us.
            repeatOnControlQueue(every: interval) {
                if MonotonicTime.now() - sampler.lastStep < 2_000_000_000 { notifier.notify("WATCHDOG=1") }
            }
        }
        notifier.notify("READY=1\nSTATUS=sampling \(device.chip) at \(device.rate) Hz, ±\(device.range) g; no clients")
        logger.info("acceld \(acceldVersion): \(device.chip) at \(device.location), ±\(device.range) g, \(device.rate) Hz (\(configuration.device.rateOrigin)); clients at \(serverDescription)")
    }

    var serverDescription = ""

    /// `[vibration] idle-threshold = learn`: the first minute at rest gives
    /// the idle threshold (the service logs it, and waits while the machine runs).
    private func learnOffLevelAtStart(_ hub: Hub, rate: Double) {
        logger.info("learning the machine's off level over the first minute at rest ([vibration] idle-threshold = learn)")
        hub.vibration.learn(seconds: 60, rate: rate, atStart: true) { [logger] result in
            if case .failure(let error) = result { logger.warning("the machine's off level was not learned: \(error.message)") }
        }
    }

    private func repeatOnControlQueue(every nanoseconds: UInt64, _ work: @escaping () -> Void) {
        let timer = DispatchSource.makeTimerSource(queue: hub.control)
        timer.setEventHandler(handler: work)
        timer.schedule(deadline: .now() + .nanoseconds(Int(nanoseconds)), repeating: .nanoseconds(Int(nanoseconds)),
                       leeway: .milliseconds(10))
        timer.resume()
        timers.append(timer)
    }
}
