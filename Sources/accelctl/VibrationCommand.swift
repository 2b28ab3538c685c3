// SPDX-License-Identifier: Apache-2.0
#if canImport(Glibc)
import Glibc
#endif
import AccelClient
import AccelCore
import AccelProtocol
import AccelTools
import AccelVibration
import ArgumentParser

extension AmplitudeScale: ExpressibleByArgument {}

struct VibrationCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "vibration",
        abstract: "A live view of acceld's vibration analysis: RMS, peak, crest, kurtosis, velocity and its ISO zone, the strongest lines, the machine's state and the spectrum as bars.",
        discussion: """
            Redrawn at each window on a terminal (q or Ctrl-C quits); piped, one line per window. The part's rate sets the spectrum's span (half the rate): run acceld at a kHz rate on a part with a FIFO to see a machine's lines.
            Examples:
              accelctl vibration                                 # the live view
              accelctl vibration --window 2 --class II --scale linear
              accelctl vibration --count 10 | tee windows.log    # a line per window
              accelctl vibration --json --bins 256               # acceld's messages
            """
    )

    /// The protocol that brought the vibration and machine streams.
    static let vibrationProtocol = 3

    @OptionGroup var daemon: SocketOption

    @Option(help: ArgumentHelp("Window length, s (acceld refuses one shorter than 3 periods of 10 Hz).", valueName: "s"))
    var window = 1.0

    @Option(help: ArgumentHelp("Fraction of a window shared with the next, 0 to 0.9: a window is shown every window × (1 - overlap) s.", valueName: "fraction"))
    var overlap = 0.5

    @Option(help: ArgumentHelp("Spectrum bins acceld sends per window (0 to 4096; 0: no spectrum). Each bin is the largest line of its share of 0 to half the rate; a terminal column shows the largest of its bins.", valueName: "count"))
    var bins = 512

    @Option(name: .customLong("class"), help: ArgumentHelp("The machine's class, to judge velocity RMS by ISO 10816 / 20816's zones A to D.", valueName: "class"),
            completion: .list(MachineClass.all.map(\.name)))
    var machineClass: String?

    @Option(help: "The spectrum's bar heights: log (3 decades below the tallest) or linear.")
    var scale = AmplitudeScale.log

    @Flag(help: "One JSON message per line, exactly as acceld sent it.")
    var json = false

    @Option(help: "Stop after this many windows.")
    var count: Int?

    @Option(help: "Stop after this many seconds.")
    var seconds: Double?

    @Option(help: ArgumentHelp("Instead of the view: learn the machine's off level over this many seconds (2 to 600; the machine must be off all the while; privileged), print it with the idle and running thresholds acceld now judges the machine's state by, and the [vibration] lines that keep them.", valueName: "s"))
    var learn: Double?

    func validate() throws {
        guard (0.05...60).contains(window) else { throw ValidationError("--window \(window): give 0.05 to 60 s") }
        guard (0...0.9).contains(overlap) else { throw ValidationError("--overlap \(overlap): give a fraction from 0 to 0.9") }
        guard (0...VibrationWatch.maximumBins).contains(bins) else { throw ValidationError("--bins \(bins): give 0 to \(VibrationWatch.maximumBins)") }
        if let learn, !(2...600).contains(learn) { throw ValidationError("--learn \(learn): give 2 to 600 s (a minute is a good span)") }
        if let machineClass, MachineClass.named(machineClass) == nil {
            throw ValidationError("--class \(machineClass): choose one of \(MachineClass.all.map(\.name).joined(separator: ", "))")
        }
    }

    func run() throws {
        let client = guarded { try daemon.connect() }
        let hello = client.hello
        guard hello.protocolVersion >= Self.vibrationProtocol else {
            fail(ToolError.daemonTooOld("acceld \(hello.version) at \(client.path) speaks protocol \(hello.protocolVersion), which has no vibration stream (it came with protocol \(Self.vibrationProtocol)): upgrade acceld (sudo apt install --only-upgrade acceld) and restart it"))
        }
        if let learn { return learnOffLevel(client, seconds: learn) }
        let windows = VibrationWatch(window: window, overlap: overlap, spectrumBins: bins)
        // A window the part's rate cannot give is refused here, with acceld's words (exit 65).
        _ = guarded { try client.request(.watch(streams: [.vibration, .machine], rate: nil, fields: .acc, latency: nil, vibration: windows)) }
        var context = VibrationScreenContext(
            title: "\(hello.device.chip) at \(hello.device.location) · \(window) s, \(Int((overlap * 100).rounded())) % overlap",
            machineClass: machineClass.flatMap(MachineClass.named), scale: scale)
        if json || isatty(1) == 0 {
            printLines(client, machineClass: context.machineClass)
        } else {
            liveView(client, context: &context)
        }
    }

    /// Piped: a line per window (and per change of the machine's state), or the messages themselves with --json.
    func printLines(_ client: DaemonConnection, machineClass: MachineClass?) {
        var shown = 0
        let deadline = seconds.map { MonotonicTime.now() + UInt64($0 * 1e9) }
        while count.map({ shown < $0 }) ?? true {
            var timeout: Double?
            if let deadline {
                let now = MonotonicTime.now()
                if now >= deadline { break }
                timeout = Double(deadline - now) / 1e9
            }
            guard let line = guarded({ try client.nextLine(timeout: timeout) }), let message = try? Message(parsing: line) else { continue }
            if json { writeBytes((line + [0x0A])[...]) }
            switch message {
            case .vibration(let window):
                if !json { writeLine(VibrationScreen.summary(window, machineClass: machineClass)) }
                shown += 1
            case .machine(let change):
                if !json { writeLine("machine " + VibrationScreen.change(change)) }
            case .dropped, .goodbye:
                if !json { printError("accelctl: " + describe(message)) }
            default:
                break
            }
        }
    }

    /// On a terminal: the screen redrawn at each window, and when the terminal's size changes.
    func liveView(_ client: DaemonConnection, context: inout VibrationScreenContext) {
        let terminal = Terminal()
        defer { terminal.restore() }
        var latest: VibrationMessage?
        var shown = 0
        var dirty = true
        var drawnSize: (width: Int, height: Int)?
        let deadline = seconds.map { MonotonicTime.now() + UInt64($0 * 1e9) }
        while count.map({ shown < $0 }) ?? true {
            do {
                while let message = try client.next(timeout: 0) {
                    switch message {
                    case .vibration(let window):
                        latest = window
                        shown += 1
                        dirty = true
                    case .machine(let change):
                        context.lastChange = change
                        dirty = true
                    case .goodbye(let reason):
                        throw ClientError.disconnected(reason)
                    default:
                        break
                    }
                }
            } catch {
                terminal.restore()
                fail(error)
            }
            let size = (width: terminal.width, height: terminal.height)
            if dirty || drawnSize.map({ $0 != size }) ?? true {
                terminal.draw(VibrationScreen.render(latest, context: context, width: size.width, height: size.height))
                (dirty, drawnSize) = (false, size)
            }
            if let deadline, MonotonicTime.now() >= deadline { break }
            if terminal.quitRequested(waitingMilliseconds: 50) { break }
        }
    }
}

extension VibrationCommand {
    /// `--learn`: acceld's `learn`, said as a person reads it; a refusal
    /// (the machine ran, not permitted) exits with its code.
    func learnOffLevel(_ client: DaemonConnection, seconds: Double) {
        printError("accelctl: learning the machine's off level for \(fixed(seconds, 0)) s: keep it off")
        guard case .learned(let learned) = guarded({ try client.request(.learn(seconds: seconds), timeout: seconds + 10) }) else { return }
        print("off level \(fixed(learned.offLevel * 1000, 2)) mg over \(learned.blocks) quarter-second blocks")
        print("idle above \(fixed(learned.idle * 1000, 1)) mg, running above \(fixed(learned.running * 1000, 1)) mg, until acceld reloads; to keep them, in acceld.conf:")
        print(learned.configLines)
    }
}
