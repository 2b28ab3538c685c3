// SPDX-License-Identifier: Apache-2.0
#if canImport(Glibc)
import Glibc
#endif
import AccelDaemon
import AccelDriver
import AccelMotion
import AccelProtocol
import AccelTools
import ArgumentParser

/// One line a person can read for a daemon message.
func describe(_ m: JSONObject) -> String {
    func n(_ key: String, _ decimals: Int) -> String { fixed(m[key]?.number ?? 0, decimals) }
    let t = "t=\(n("t", 3))"
    switch m["class"]?.string ?? "" {
    case "orientation": return "\(t) orientation \(m["orientation"] ?? "?") (was \(m["previous"] ?? "?"))"
    case "shake":
        return m["phase"]?.string == "start" ? "\(t) shaking" : "\(t) shake over: \(n("duration", 2)) s, peak \(n("peak", 2)) g"
    case "freefall":
        switch m["phase"]?.string {
        case "start": return "\(t) falling?"
        case "confirmed": return "\(t) free fall"
        case "withdrawn": return "\(t) no free fall after all (\(n("duration", 2)) s low)"
        default: return "\(t) free fall over: \(n("duration", 2)) s, about \(n("height", 2)) m"
        }
    case "tap": return "\(t) \(m["count"]?.number == 2 ? "double tap" : "tap") \(m["direction"] ?? "?"), peak \(n("peak", 2)) g"
    case "movement": return "\(t) movement \(m["direction"] ?? "?"), \(n("duration", 2)) s, peak \(n("peak", 2)) g"
    case "device": return "device \(m["event"] ?? m["state"] ?? ""): \(m["message"]?.description ?? "\(m["chip"] ?? "") at \(m["location"] ?? "")")"
    case "frame":
        let acc = m["acc"]?.numbers(count: 3).map { "x \(fixed($0[0], 3)) y \(fixed($0[1], 3)) z \(fixed($0[2], 3)) g" } ?? ""
        let attitude = m["pitch"] != nil ? " pitch \(n("pitch", 1))° roll \(n("roll", 1))°" : ""
        return "\(t) #\(m["seq"] ?? "") \(acc)\(attitude)"
    case "dropped": return "(\(m["count"] ?? 0) messages dropped: this client read too slowly)"
    case "status": return statusText(m)
    case "goodbye": return "acceld says goodbye: \(m["reason"] ?? "")"
    default: return "\(m)"
    }
}

func statusText(_ m: JSONObject) -> String {
    let d = m["device"]?.object ?? [:]
    let c = m["counters"]?.object ?? [:]
    let uptime = Int(m["uptime"]?.number ?? 0)
    return """
        device: \(d["chip"] ?? "?") at \(d["location"] ?? "?"), ±\(d["range"] ?? "?") g, \(d["rate"] ?? "?") Hz, \(d["state"] ?? "?")\(d["message"]?.string.map { " (\($0))" } ?? "")
        up \(uptime / 3600) h \(uptime / 60 % 60) min \(uptime % 60) s, serving \(m["clients"] ?? 0) client(s)
        samples published \(c["published"] ?? 0), lost \(c["lost"] ?? 0) (overruns \(c["overruns"] ?? 0)), empty reads \(c["emptyReads"] ?? 0)
        bus errors \(c["busErrors"] ?? 0), recoveries \(c["recoveries"] ?? 0), reconfigurations \(c["reconfigurations"] ?? 0)
        """
}

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
        let names = (chosen.isEmpty ? ["events", "device"] : chosen).map { JSONLine.quoted($0) }.joined(separator: ",")
        let rateField = rate.map { ",\"rate\":\($0)" } ?? ""
        let latencyField = latency.map { ",\"latency\":\($0)" } ?? ""
        _ = guarded { try client.request("{\"class\":\"watch\",\"streams\":[\(names)]\(rateField)\(latencyField)}") }
        var printed = 0
        let deadline = seconds.map { MonotonicTime.now() + UInt64($0 * 1e9) }
        while count.map({ printed < $0 }) ?? true {
            let now = MonotonicTime.now()
            if let deadline, now >= deadline { break }
            guard let line = guarded({ try client.readLine(timeout: deadline.map { Double($0 - now) / 1e9 } ?? 1) }) else { continue }
            // Straight to fd 1, a line at a time, so pipes get each message at once.
            if json {
                writeLine(line)
            } else if let m = (try? JSONValue(parsing: Array(line.utf8)))?.object {
                writeLine(describe(m))
            }
            printed += 1
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
        let status = guarded { try client.request(#"{"class":"status"}"#) }
        if json {
            print(JSONValue.object(status).jsonText)
            return
        }
        print("acceld \(client.hello["version"] ?? "?"), protocol \(client.hello["protocol"] ?? "?")")
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
              accelctl configure --set shake.threshold=1.5 --set orientation.settle-seconds=0.5
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
        var fields: [String] = ["\"class\":\"configure\""]
        if let range { fields.append("\"range\":\(range)") }
        if let rate { fields.append("\"rate\":\(rate)") }
        if !tunables.isEmpty {
            let pairs = try tunables.map { pair -> String in
                let parts = pair.split(separator: "=", maxSplits: 1).map(String.init)
                guard parts.count == 2 else { throw ValidationError("--set \(pair) is not section.key=value") }
                return JSONLine.quoted(parts[0]) + ":" + JSONLine.quoted(parts[1])
            }
            fields.append("\"tunables\":{" + pairs.joined(separator: ",") + "}")
        }
        guard fields.count > 1 else { throw ValidationError("say what to change: --range, --rate or --set section.key=value") }
        let client = guarded { try daemon.connect() }
        let reply = guarded { try client.request("{" + fields.joined(separator: ",") + "}") }
        if reply["class"]?.string == "device" {
            print("acceld now runs the chip at ±\(reply["range"] ?? "?") g, \(reply["rate"] ?? "?") Hz")
        } else {
            print("acceld applied: " + (reply["tunables"]?.object?.map { "\($0.key)=\($0.value)" }.sorted().joined(separator: ", ") ?? ""))
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
        let reply = guarded { try client.request(#"{"class":"zero"}"#) }
        print("reference: pitch \(reply["pitch"] ?? 0)°, roll \(reply["roll"] ?? 0)°")
        guard seconds > 0 else { return }
        _ = guarded { try client.request(#"{"class":"watch","streams":["frames"],"rate":5,"fields":["attitude"]}"#) }
        let end = MonotonicTime.now() + UInt64(seconds * 1e9)
        while case let now = MonotonicTime.now(), now < end {
            guard let m = guarded({ try client.readMessage(timeout: Double(end - now) / 1e9) }) else { continue }
            if m["class"]?.string == "frame" { print("pitch \(m["pitch"] ?? 0)°  roll \(m["roll"] ?? 0)°") }
        }
    }
}

struct RecordCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "record",
        abstract: "Record a trace (t,x,y,z in g) from acceld's frames, or from the chip with --direct.",
        discussion: """
            Writes the project's trace format (docs/TRACE-FORMAT.md), atomically.
            Examples:
              accelctl record --seconds 10 shake.csv
              accelctl record --direct --simulate tour --seconds 5 tour.csv
            """
    )

    @OptionGroup var daemon: SocketOption
    @OptionGroup var chip: ChipOptions

    @Option(help: "How long to record.")
    var seconds: Double = 10

    @Flag(help: "Read the chip directly instead of through acceld.")
    var direct = false

    @Argument(help: "The trace file to write.")
    var file: String

    func run() throws {
        var trace = Trace()
        var bar = ProgressBar("recording \(fixed(seconds, 1)) s")
        if direct || chip.simulate != nil {
            let time = MonotonicTime()
            let driver = guarded { try chip.openDriver(time: time, socket: daemon.socket) }
            guarded { try driver.configure(driver.defaultConfiguration()) }
            let start = time.seconds
            trace.comments = ["source: accelctl record --direct from \(driver.bus.location)", "device: \(driver.describe()), g"]
            while time.seconds - start < seconds {
                let reading = guarded { try driver.nextReading() }
                trace.times.append(time.seconds - start)
                trace.samples.append(driver.acceleration(reading.counts))
                bar.show((time.seconds - start) / seconds)
            }
            try? driver.powerDown()
        } else {
            let client = guarded { try daemon.connect() }
            let device = client.device
            trace.comments = ["source: accelctl record from acceld at \(device["location"] ?? "?")",
                              "device: \(device["chip"] ?? "?"), ±\(device["range"] ?? "?") g, \(device["rate"] ?? "?") Hz, g"]
            _ = guarded { try client.request(#"{"class":"watch","streams":["frames"],"fields":["acc"]}"#) }
            var first: Double?
            while true {
                guard let m = guarded({ try client.readMessage(timeout: 2) }), m["class"]?.string == "frame",
                      let t = m["t"]?.number, let acc = m["acc"]?.numbers(count: 3) else { continue }
                let start = first ?? t
                first = start
                if t - start > seconds { break }
                // Frames can repeat a time only across a reconfiguration; keep the trace strictly increasing.
                if let last = trace.times.last, t - start <= last { continue }
                trace.times.append(t - start)
                trace.samples.append(Vector3(acc[0], acc[1], acc[2]))
                bar.show((t - start) / seconds)
            }
        }
        guarded { try writeAtomically(trace.text, to: file) }
        bar.finish("\(trace.count) samples written to \(file)")
    }
}
