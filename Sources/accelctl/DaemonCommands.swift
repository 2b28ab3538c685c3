// SPDX-License-Identifier: Apache-2.0
#if canImport(Glibc)
import Glibc
#endif
import AccelClient
import AccelConfiguration
import AccelCore
import AccelDriver
import AccelMotion
import AccelProtocol
import AccelTools
import ArgumentParser

/// What --streams accepts, for the shell completions.
let streamNames = StreamName.allCases.map(\.rawValue) + ["events"]

struct EventsCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "events",
        abstract: "Print acceld's messages as they come, like gpspipe.",
        discussion: """
            Streams: frames, orientation, shake, freefall, movement, tap, device,
            status, or events (the five event streams). Default: events and device.
            Examples:
              accelctl events                                   # readable lines
              accelctl events --json shake | mosquitto_pub -l -t board/shake
              accelctl events --streams frames --rate 10 --count 50 --json
            """
    )

    @OptionGroup var daemon: SocketOption

    @Argument(help: "Streams to watch (also accepted as --streams).", completion: .list(streamNames))
    var positional: [String] = []

    @Option(parsing: .upToNextOption, help: "Streams to watch.", completion: .list(streamNames))
    var streams: [String] = []

    @Option(help: "Frame rate in Hz, when frames are watched.")
    var rate: Double?

    @Option(help: ArgumentHelp("How late frames may arrive, ms: on a part with a FIFO acceld then reads the chip in batches (protocol `latency`).", valueName: "ms"))
    var latency: Double?

    @Flag(help: "One JSON message per line, exactly as acceld sent it.")
    var json = false

    @Option(help: "Stop after this many messages.")
    var count: Int?

    @Option(help: "Stop after this many seconds.")
    var seconds: Double?

    func run() throws {
        let chosen = positional + streams
        let client = guarded { try daemon.connect() }
        let watched = guarded { () throws(ProtocolError) in try StreamName.parse(chosen.isEmpty ? ["events", "device"] : chosen) }
        _ = guarded { try client.request(.watch(streams: watched, rate: rate, fields: .all, latency: latency)) }
        var printed = 0
        let deadline = seconds.map { MonotonicTime.now() + UInt64($0 * 1e9) }
        while count.map({ printed < $0 }) ?? true {
            // Without --seconds, nothing to wake for but a message.
            var timeout: Double?
            if let deadline {
                let now = MonotonicTime.now()
                if now >= deadline { break }
                timeout = Double(deadline - now) / 1e9
            }
            if json {
                // Passed on without decoding (at 400 Hz on a small board the
                // decoding would cost more than the daemon), straight to fd 1
                // so pipes get each message at once: every whole line that
                // has arrived in one write, as prompt as a line at a time at
                // a fraction of the system calls when acceld sends batches.
                guard let lines = guarded({ try client.nextLines(limit: count.map { $0 - printed }, timeout: timeout) }) else { continue }
                writeBytes(lines.bytes)
                printed += lines.count
            } else {
                guard let line = guarded({ try client.nextLine(timeout: timeout) }) else { continue }
                if let message = try? Message(parsing: line) { writeLine(describe(message)) }
                printed += 1
            }
        }
    }
}

struct StatusCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "status",
        abstract: "acceld's device, counters and clients, in plain words.",
        discussion: "Example: accelctl status --socket /run/acceld/acceld.sock"
    )

    @OptionGroup var daemon: SocketOption

    @Flag(help: "The status message as JSON.")
    var json = false

    func run() throws {
        let client = guarded { try daemon.connect() }
        guard case .status(let status) = guarded({ try client.request(.status) }) else { return }
        if json {
            print(Message.status(status).json)
            return
        }
        print("acceld \(client.hello.version), protocol \(client.hello.protocolVersion)")
        print(statusText(status))
    }
}

struct ConfigureCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "configure",
        abstract: "Change acceld's range, rate or pipeline tunables (privileged).",
        discussion: """
            Allowed to root, acceld's user and [daemon] privileged-group.
            Examples:
              accelctl configure --range 8 --rate 400
              accelctl configure --set shake.threshold=1.5 \\
                  --set orientation.settle-seconds=0.5
            """
    )

    @OptionGroup var daemon: SocketOption

    @Option(help: "Full scale, g: 2 or 8.")
    var range: Int?

    @Option(help: "Output data rate, Hz: 100 or 400.")
    var rate: Int?

    @Option(name: .customLong("set"), help: ArgumentHelp("A tunable, section.key=value as in acceld.conf.", valueName: "key=value"))
    var tunables: [String] = []

    func run() throws {
        var settings: [String: String] = [:]
        for pair in tunables {
            let parts = pair.split(separator: "=", maxSplits: 1).map(String.init)
            guard parts.count == 2 else { throw ValidationError("--set \(pair) is not section.key=value") }
            settings[parts[0]] = parts[1]
        }
        guard range != nil || rate != nil || !settings.isEmpty else { throw ValidationError("say what to change: --range, --rate or --set section.key=value") }
        let client = guarded { try daemon.connect() }
        switch guarded({ try client.request(.configure(range: range, rate: rate, mode: nil, tunables: settings)) }) {
        case .device(let device):
            print("acceld now runs the chip at ±\(device.range) g, \(device.rate) Hz")
        case .configured(let applied):
            print("acceld applied: " + applied.map { "\($0.key)=\($0.value)" }.sorted().joined(separator: ", "))
        default:
            break
        }
    }
}

struct ZeroCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "zero",
        abstract: "Take the board's attitude now as level, and show pitch and roll relative to it.",
        discussion: """
            The reference belongs to this connection (Core Motion's reference
            attitude): other clients are not affected.
            Example: accelctl zero --seconds 10
            """
    )

    @OptionGroup var daemon: SocketOption

    @Option(help: "Show relative pitch and roll for this long (5 per second).")
    var seconds: Double = 0

    func run() throws {
        let client = guarded { try daemon.connect() }
        guard case .zero(let pitch, let roll) = guarded({ try client.request(.zero(reset: false)) }) else { return }
        print("reference: pitch \(fixed(pitch, 2))°, roll \(fixed(roll, 2))°")
        guard seconds > 0 else { return }
        _ = guarded { try client.request(.watch(streams: [.frames], rate: 5, fields: .attitude, latency: nil)) }
        let end = MonotonicTime.now() + UInt64(seconds * 1e9)
        while case let now = MonotonicTime.now(), now < end {
            guard case .frame(let frame)? = guarded({ try client.next(timeout: Double(end - now) / 1e9) }) else { continue }
            print("pitch \(fixed(frame.pitch ?? 0, 2))°  roll \(fixed(frame.roll ?? 0, 2))°")
        }
    }
}

struct RecordCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "record",
        abstract: "Record a trace (t,x,y,z in g; wx,wy,wz in rad/s with a gyroscope) from acceld's frames, or from the chip with --direct; or a ROS 2 bag (MCAP).",
        discussion: """
            Writes the project's trace format (docs/TRACE-FORMAT.md), atomically:
            t,x,y,z, and on a part with a gyroscope t,x,y,z,wx,wy,wz.
            With --format mcap (the default for a FILE ending in .mcap): a ROS 2
            bag of acceld's frames, sensor_msgs/Imu on /imu/data_raw (and
            /imu/data with a gyroscope) and /diagnostics, which ros2 bag play,
            Foxglove and rosbags open (docs/ROS2.md).
            Examples:
              accelctl record --seconds 10 shake.csv
              accelctl record --direct --simulate tour --seconds 5 tour.csv
              accelctl record --seconds 60 --frame-id imu_link robot.mcap
            """
    )

    @OptionGroup var daemon: SocketOption
    @OptionGroup var chip: ChipOptions

    @Option(help: "How long to record.")
    var seconds: Double = 10

    @Flag(help: "Read the chip directly instead of through acceld.")
    var direct = false

    enum Format: String, ExpressibleByArgument, CaseIterable { case csv, mcap }

    @Option(help: "csv (the trace format) or mcap (a ROS 2 bag); by default, mcap for a FILE ending in .mcap, else csv.")
    var format: Format?

    @Option(help: "With --format mcap: the IMU messages' header.frame_id.")
    var frameId = "imu_link"

    @Argument(help: "The file to write.")
    var file: String

    func run() throws {
        if (format ?? (file.hasSuffix(".mcap") ? .mcap : .csv)) == .mcap {
            guard !direct && chip.simulate == nil else {
                printError("accelctl: --format mcap records acceld's frames (calibrated, stamped by the daemon): drop --direct and --simulate, "
                           + "and start acceld (acceld --simulate MOTION for the chip model)")
                throw ExitCode(64)
            }
            let lost = MCAPRecorder(client: guarded { try daemon.connect() }, seconds: seconds, file: file, frameID: frameId).run()
            if lost > 0 { printError("accelctl: \(lost) samples were lost before they were read; the bag has gaps there.") }
            return
        }
        var trace = Trace()
        var bar = ProgressBar("recording \(fixed(seconds, 1)) s")
        var lost = 0
        if direct || chip.simulate != nil {
            let time = MonotonicTime()
            let driver = guarded { try chip.openDriver(time: time, socket: daemon.socket) }
            guarded { try driver.configure(driver.defaultConfiguration()) }
            let start = time.nanoseconds, period = Double(driver.outputPeriodNanoseconds) / 1e9
            trace.comments = ["source: accelctl record --direct from \(driver.bus.location)", "device: \(driver.describe()), g"]
            if driver.profile.gyroscope != nil {
                // Straight from the chip: the gyroscope's offset is in the rates.
                trace.comments.append("rotation: rad/s as the gyroscope read them, offset included")
                trace.rotationRates = []
            }
            // A process that is not scheduled in time (a busy machine, a
            // stopped terminal) misses samples: the chip overwrites them. A
            // row is timed when its read began; two reads that found
            // consecutive samples then began less than two periods apart,
            // so a gap of k periods in t means k - 1 were missed. One a
            // little short of two periods counts only if the overrun bit
            // says so. The trace keeps the gaps in t and counts them.
            while Double(time.nanoseconds - start) / 1e9 < seconds {
                let (reading, began) = guarded { try driver.nextStampedReading() }
                let t = Double(began - start) / 1e9
                if let previous = trace.times.last {
                    let missed = Int(((t - previous) / period).rounded()) - 1
                    if missed >= 2 || reading.status.contains(.overrun) { lost += max(missed, 1) }
                }
                trace.times.append(t)
                trace.samples.append(driver.acceleration(reading.counts))
                if trace.rotationRates != nil { trace.rotationRates!.append(reading.rotation.flatMap(driver.rotationRate) ?? Vector3(0, 0, 0)) }
                bar.show(t / seconds)
            }
            try? driver.powerDown()
        } else {
            let client = guarded { try daemon.connect() }
            let device = client.device
            trace.comments = ["source: accelctl record from acceld at \(device.location)",
                              "device: \(device.chip), ±\(device.range) g, \(device.rate) Hz, g"]
            let gyroscope = device.gyroscope != nil
            if gyroscope {
                trace.comments.append("rotation: rad/s from acceld's frames, offset removed (docs/PROTOCOL.md)")
                trace.rotationRates = []
            }
            _ = guarded { try client.request(.watch(streams: [.frames], rate: nil, fields: gyroscope ? [.acc, .rotation] : .acc, latency: nil)) }
            var first: Double?, lastSeq: UInt64?
            while true {
                guard case .frame(let frame)? = guarded({ try client.next(timeout: 2) }), let acc = frame.acceleration,
                      !gyroscope || frame.rotationRate != nil else { continue }
                let t = frame.t
                let start = first ?? t
                first = start
                if t - start > seconds { break }
                // Frames can repeat a time only across a reconfiguration; keep the trace strictly increasing.
                if let last = trace.times.last, t - start <= last { continue }
                if let lastSeq { lost += max(0, Int(frame.seq) - Int(lastSeq) - 1) }
                lastSeq = frame.seq
                trace.times.append(t - start)
                trace.samples.append(acc)
                if let rate = frame.rotationRate, gyroscope { trace.rotationRates!.append(rate) }
                bar.show((t - start) / seconds)
            }
        }
        if lost > 0 { trace.comments.append("lost: \(lost) samples before they were read") }
        guarded { try writeAtomically(trace.text, to: file) }
        bar.finish("\(trace.count) samples written to \(file)")
        if lost > 0 {
            printError("accelctl: \(lost) samples were lost before they were read (a reader not scheduled in time, "
                       + "or a bus fault); the trace has gaps in t there.")
        }
    }
}
