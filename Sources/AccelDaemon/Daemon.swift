// SPDX-License-Identifier: Apache-2.0
#if canImport(Glibc)
import Glibc
#endif
import AccelConfiguration
import AccelCore
import AccelDriver
import AccelProtocol
import AccelMotion
import AccelParts
import Dispatch
import Logging

/// The running service: the sampler on its own queue, which only samples
/// and publishes; the hub's control queue for clients, requests, status and
/// the watchdog; signals on the main queue; systemd's notify protocol.
/// (Unchecked: its state is set before dispatchMain, then read and changed
/// on the main queue only, where the signal handlers run.)
public final class Daemon: @unchecked Sendable {
    public struct Options: Sendable {
        public var configuration: Configuration
        /// The file to re-read on SIGHUP.
        public var configurationPath: String?
        public var source: DeviceSource
        public var faults: [Fault] = []
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

    private var options: Options
    private let logger = Logger(label: "acceld")
    private let environment: [String: String]
    private let notifier: SystemdNotifier
    private var sampler: (any DeviceSampler)!
    private var hub: Hub!
    private var listener: Listener?
    /// The status and watchdog timers, on the control queue.
    private var timers: [DispatchSourceTimer] = []
    /// The socket file we created (and must remove); nil when systemd passed it.
    private var ownedSocketPath: String?
    private var signalSources: [DispatchSourceSignal] = []

    public init(options: Options, environment: [String: String]) {
        self.options = options
        self.environment = environment
        self.notifier = SystemdNotifier(environment: environment)
        // Before any thread exists, so every thread inherits it.
        Daemon.blockHandledSignals()
    }

    static let handledSignals = [SIGTERM, SIGINT, SIGHUP]

    /// SIGTERM, SIGINT and SIGHUP reach the daemon only through its dispatch
    /// signal sources (a signalfd): blocked in every thread, they stay
    /// pending until read there. Left unblocked in some thread, an ignored
    /// signal would simply be discarded by the kernel.
    static func blockHandledSignals() {
        var set = sigset_t()
        sigemptyset(&set)
        for number in handledSignals { sigaddset(&set, number) }
        pthread_sigmask(SIG_BLOCK, &set, nil)
    }

    /// Starts everything and never returns: SIGTERM or SIGINT end the process.
    public func run() throws -> Never {
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
        sampler.mountMatrix = configuration.device.mountMatrix
        sampler.calibration = calibration
        self.sampler = sampler
        do {
            try sampler.open()
            sampler.calibration = calibration
            sampler.mountMatrix = configuration.device.mountMatrix
        } catch {
            guard configuration.daemon.waitForDevice, error is BusError else { throw error }
            logger.warning("no device yet (\(error)); waiting for it ([daemon] wait-for-device)")
        }
        let identity = sampler.identity
        var device = DeviceInfo(
            chip: identity?.chip ?? configuration.device.part ?? "unknown",
            location: identity?.location ?? options.source.description,
            configuration: sampler.configuration, profile: identity == nil ? configuration.device.profile : identity?.profile,
            state: identity == nil ? "lost" : "ok")
        if identity != nil { device.gyroscope = sampler.gyroscopeRange }

        let notifier = self.notifier
        let hub = Hub(sampler: sampler, device: device, socket: configuration.socket,
                      calibrationStore: store, isPrivileged: { privilege.allows($0) },
                      notify: { notifier.notify($0) })
        self.hub = hub
        sampler.output = { hub.publish($0) }
        // Before the socket exists: a SIGTERM that follows a client's hello
        // must find its source (the handlers run once dispatchMain starts).
        installSignalHandlers()
        let listener = Listener(descriptor: try listeningSocket(), hub: hub)
        self.listener = listener
        sampler.queue.async {
            sampler.checkGyroscopeAtRest()
            sampler.start()
        }
        hub.control.async { listener.start() }
        if case .simulated = options.source, let model = (sampler as? Sampler)?.driver?.bus as? ChipModel {
            for fault in options.faults { fault.schedule(on: model, queue: sampler.queue) }
        }
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
        dispatchMain()
    }

    private var serverDescription = ""

    private func repeatOnControlQueue(every nanoseconds: UInt64, _ work: @escaping () -> Void) {
        let timer = DispatchSource.makeTimerSource(queue: hub.control)
        timer.setEventHandler(handler: work)
        timer.schedule(deadline: .now() + .nanoseconds(Int(nanoseconds)), repeating: .nanoseconds(Int(nanoseconds)),
                       leeway: .milliseconds(10))
        timer.resume()
        timers.append(timer)
    }

    /// The sampler for the source: the register sampler on i2c-dev or the
    /// chip model, the IIO sampler on a kernel driver.
    private func makeSampler(time: TimeSource) throws -> any DeviceSampler {
        let configuration = options.configuration
        if case .iio(let name) = options.source {
            guard configuration.device.interrupt == nil else {
                throw StartError(description: "interrupt is for the chip's registers on i2c-dev: through IIO the kernel's driver owns the INT line (it is the device's trigger)", exitCode: 64)
            }
            guard options.faults.isEmpty else {
                throw StartError(description: "--fault works only with --simulate: faults are injected into the chip model", exitCode: 64)
            }
            return IIOSampler(connect: { rate in try IIOBuffer(device: try IIODevice.find(name), rate: rate) },
                              configuration: configuration.device.configuration, settings: configuration.motion, time: time)
        }
        let (connect, model) = try makeConnector(time: time)
        let sampler = Sampler(connect: connect, configuration: configuration.device.configuration,
                              settings: configuration.motion, time: time)
        sampler.realtimePriority = configuration.daemon.realtimePriority
        sampler.automaticRate = configuration.device.rate == nil
        sampler.interruptSource = try interruptSource(model: model, time: time, queue: sampler.queue)
        sampler.interruptFallback = configuration.device.interruptFallback
        let power = configuration.power
        if power.wakeOnMotion { sampler.wakeOnMotion = WakeOnMotion(stillSeconds: power.stillSeconds, threshold: power.wakeThreshold) }
        return sampler
    }

    /// What opens the INT line: the GPIO line [device] interrupt names, or
    /// the chip model's pin (`model`, with --simulate); nil without one.
    private func interruptSource(model: ChipModel?, time: TimeSource, queue: DispatchQueue) throws -> (() throws -> InterruptLine)? {
        let device = options.configuration.device
        guard let interrupt = device.interrupt else { return nil }
        let pin = device.interruptPin
        if let model {
            guard interrupt == DeviceSettings.modelLine else {
                throw StartError(description: "with --simulate the INT pin is the chip model's: give --interrupt model (or interrupt = model), not \(interrupt)", exitCode: 64)
            }
            return { SimulatedInterruptLine(model: model, pin: pin, time: time, owner: queue) }
        }
        guard interrupt != DeviceSettings.modelLine else {
            throw StartError(description: "interrupt = model is the chip model's pin: it goes with --simulate; on hardware name the GPIO line (gpiochip0:17)", exitCode: 64)
        }
        let spec = try GPIOLineSpec(parsing: interrupt)
        return { try GPIOLine(spec) }
    }

    private func makeConnector(time: TimeSource) throws -> (connect: () throws -> Accelerometer, model: ChipModel?) {
        switch options.source {
        case .iio:
            preconditionFailure("the IIO backend has its own sampler")
        case .i2c:
            guard options.faults.isEmpty else {
                throw StartError(description: "--fault works only with --simulate: faults are injected into the chip model", exitCode: 64)
            }
            let source = options.source, part = options.configuration.device.profile
            return ({ try source.openDriver(time: time, part: part) }, nil)
        case .simulated(let name):
            // One model for the daemon's lifetime, so reconnects find the
            // same chip (with whatever a fault did to it).
            var imperfections = ChipModel.Imperfections()
            imperfections.noise = 0.004
            imperfections.offset = Vector3(0.012, -0.008, 0.018)
            imperfections.rateError = 0.01
            // A six-axis part's gyroscope: an offset within the LSM6DSO's
            // typical ±1 dps, and its noise at 104 Hz (the fusion learns the first).
            imperfections.gyroscopeOffset = Vector3(0.6, -0.4, 0.3)
            imperfections.gyroscopeNoise = 0.03
            let part = options.configuration.device.profile ?? .lis302dl
            let motion = try DeviceSource.motion(named: name, playedBy: part)
            if let notice = DeviceSource.ignoredRotation(motion, part: part) { logger.notice("\(notice)") }
            let model = ChipModel(profile: part, motion: motion, time: time,
                                  imperfections: imperfections, location: "chip model (\(name))")
            return ({ try Accelerometer(bus: model, time: time, part: part) }, model)
        }
    }

    /// The socket systemd passed, or one at [socket] path with its mode and
    /// group.
    private func listeningSocket() throws -> Int32 {
        let socket = options.configuration.socket
        if let fd = SocketActivation.listeningDescriptors(environment: environment).first {
            serverDescription = "the socket systemd passed (fd \(fd))"
            return fd
        }
        let path = socket.path
        try prepareSocketPath(path)
        // Created with its mode (under a umask that leaves only it), so no
        // client ever finds it listening with another; nothing else creates
        // files while the server starts.
        let umaskBefore = umask(~mode_t(socket.mode) & 0o777)
        let fd: Int32
        do {
            fd = try Listener.listen(path: path)
            umask(umaskBefore)
        } catch {
            umask(umaskBefore)
            throw StartError(description: "cannot listen on \(path): \(error); pass --socket PATH or set [socket] path", exitCode: 73)
        }
        ownedSocketPath = path
        serverDescription = path
        if !socket.group.isEmpty {
            guard let group = getgrnam(socket.group) else {
                throw StartError(description: "[socket] group: there is no group '\(socket.group)' on this system", exitCode: 78)
            }
            if chown(path, uid_t.max, group.pointee.gr_gid) != 0 {
                throw StartError(description: "cannot give \(path) to group \(socket.group): \(String(cString: strerror(errno)))", exitCode: 77)
            }
        }
        return fd
    }

    /// Removes a stale socket file (nobody listening), refuses to steal a
    /// live one, and creates the directory if it is missing.
    private func prepareSocketPath(_ path: String) throws {
        let directory = String(path[..<(path.lastIndex(of: "/") ?? path.startIndex)])
        if !directory.isEmpty { mkdir(directory, 0o755) }
        var info = stat()
        guard lstat(path, &info) == 0 else { return }
        guard info.st_mode & S_IFMT == S_IFSOCK else {
            throw StartError(description: "\(path) exists and is not a socket: move it away or choose another --socket path", exitCode: 73)
        }
        if socketAnswers(path) {
            throw StartError(description: "another acceld is already listening on \(path): stop it first (systemctl stop acceld) or choose another --socket path", exitCode: 75)
        }
        unlink(path)
    }

    private func socketAnswers(_ path: String) -> Bool {
        let fd = Glibc.socket(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { return false }
        defer { close(fd) }
        return Listener.withSocketAddress(path) { connect(fd, $0, $1) == 0 }
    }

    private func installSignalHandlers() {
        for (number, action) in zip(Daemon.handledSignals, [shutdown, shutdown, reload]) {
            // No SIG_IGN here: setting it discards a signal already pending,
            // and the signals are blocked in every thread anyway.
            let source = DispatchSource.makeSignalSource(signal: number, queue: .main)
            source.setEventHandler(handler: action)
            source.resume()
            signalSources.append(source)
        }
    }

    /// SIGHUP: re-read the configuration file and apply the pipeline's
    /// tunables without dropping clients. Device and socket settings need a
    /// restart; a bad file changes nothing.
    private func reload() {
        guard let path = options.configurationPath else {
            logger.notice("SIGHUP: no configuration file to reload (started without --config)")
            return
        }
        notifier.notify("RELOADING=1")
        defer { notifier.notify("READY=1") }
        let fresh: Configuration
        do { fresh = try Configuration(contentsOf: path) } catch {
            logger.error("SIGHUP: \(error); keeping the running configuration")
            return
        }
        let sampler = self.sampler!
        sampler.queue.async { sampler.update(settings: fresh.motion) }
        if fresh.device != options.configuration.device || fresh.socket != options.configuration.socket {
            logger.notice("SIGHUP: [device] and [socket] changes take effect at the next restart")
        }
        options.configuration.motion = fresh.motion
        logger.info("SIGHUP: pipeline tunables reloaded from \(path)")
    }

    /// SIGTERM/SIGINT: stop accepting and reading requests, stop sampling
    /// and power the chip down, say goodbye, remove our socket file, exit 0.
    /// Each step waits for the one before, so no work is queued after it.
    private func shutdown() {
        logger.info("stopping")
        notifier.notify("STOPPING=1")
        let sampler = self.sampler!, hub = self.hub!, listener = self.listener, timers = self.timers
        hub.control.sync {
            listener?.stop()
            for timer in timers { timer.cancel() }
            hub.stopServing()
        }
        let powerDown = options.configuration.daemon.powerDownOnExit
        sampler.queue.sync { sampler.stop(powerDown: powerDown) }
        hub.control.sync { hub.closeAll(saying: "acceld is stopping") }
        if let path = ownedSocketPath { unlink(path) }
        exit(0)
    }
}
