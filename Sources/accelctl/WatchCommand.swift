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

struct WatchCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "watch",
        abstract: "A live view: x, y, z with bars, gravity, user acceleration, attitude, orientation, events.",
        discussion: """
            Fits an 80x24 terminal. Quit with q or Ctrl-C.
            Examples:
              accelctl watch                            # through acceld
              accelctl watch --direct --simulate tour   # the chip model, no daemon
            """
    )

    @OptionGroup var daemon: SocketOption
    @OptionGroup var chip: ChipOptions

    @Flag(help: "Read the chip directly instead of through acceld.")
    var direct = false

    func run() throws {
        var state = WatchState()
        let source: () throws -> Void
        var keyWaitMilliseconds: Int32 = 50
        if direct || chip.simulate != nil {
            let time = MonotonicTime()
            let driver = guarded { try chip.openDriver(time: time, socket: daemon.socket) }
            guarded { try driver.configure(driver.defaultConfiguration()) }
            var reader = DirectReader(driver: driver, time: time)
            keyWaitMilliseconds = reader.keyWaitMilliseconds
            state.title = "\(driver.describe()) (direct)"
            source = { reader.readReady(into: &state) }
        } else {
            let client = guarded { try daemon.connect() }
            let device = client.device
            state.title = "\(device.chip) at \(device.location) · ±\(device.range) g · \(device.rate) Hz"
            state.range = device.range
            let ack = guarded { try client.request(.watch(streams: StreamName.events.union([.frames, .device]), rate: 25, fields: .all, latency: nil)) }
            if case .watch(let reply) = ack { state.orientation = reply.orientation?.rawValue ?? "unknown" }
            source = {
                while let message = try client.next(timeout: 0) {
                    switch message {
                    case .frame(let frame):
                        state.acceleration = frame.acceleration ?? .zero
                        state.gravity = frame.gravity ?? .zero
                        state.user = frame.user ?? .zero
                        state.pitch = frame.pitch ?? 0
                        state.roll = frame.roll ?? 0
                        state.yaw = frame.yaw
                        state.rotationRate = frame.rotationRate.map { $0 * (180 / .pi) }
                        state.seq = Int(frame.seq)
                    case .event(.orientation(let change)):
                        state.orientation = change.orientation.rawValue
                        state.events.append(describe(message))
                    case .goodbye(let reason):
                        throw ClientError.disconnected(reason)
                    default:
                        state.events.append(describe(message))
                    }
                }
            }
        }
        let terminal = Terminal()
        defer { terminal.restore() }
        // A screen 25 times a second at most, however often the chip is read.
        var nextDraw: UInt64 = 0
        while true {
            do { try source() } catch {
                terminal.restore()
                fail(error)
            }
            if MonotonicTime.now() >= nextDraw {
                state.events = Array(state.events.suffix(20))
                terminal.draw(WatchScreen.render(state, width: terminal.width, height: terminal.height))
                nextDraw = MonotonicTime.now() + 40_000_000
            }
            if terminal.quitRequested(waitingMilliseconds: keyWaitMilliseconds) { break }
        }
        terminal.restore()
        terminal.endAsSignalled()
    }
}

/// The signal that ended the view (SIGINT, SIGTERM, SIGHUP), set by the
/// handler and read by the loop: the handler itself does nothing else.
nonisolated(unsafe) private var endingSignal: sig_atomic_t = 0

/// The terminal in raw mode for the live view: no echo, no line buffering,
/// keys read one at a time (q and Ctrl-C quit), cursor hidden, and all of
/// it restored on the way out, also when a signal ends it (`timeout`,
/// `kill`, or Ctrl-C where standard input is not the terminal).
final class Terminal {
    private var saved = termios()
    private let isTerminal = isatty(0) != 0
    private var inputOpen = true
    private var restored = false

    init() {
        // Caught before the cursor is hidden, so that no signal can end
        // the view between the two.
        for number in [SIGINT, SIGTERM, SIGHUP] {
            var action = sigaction()
            action.__sigaction_handler.sa_handler = { endingSignal = $0 }
            sigaction(number, &action, nil)  // no SA_RESTART: the wait in poll ends
        }
        if isTerminal {
            tcgetattr(0, &saved)
            var raw = saved
            raw.c_lflag &= ~tcflag_t(ECHO | ICANON | ISIG)
            tcsetattr(0, TCSANOW, &raw)
        }
        emit("\u{1B}[?25l\u{1B}[2J")
    }

    var width: Int { size.0 }
    var height: Int { size.1 }

    private var size: (Int, Int) {
        var w = winsize()
        if ioctl(1, UInt(TIOCGWINSZ), &w) == 0, w.ws_col > 0 { return (Int(w.ws_col), Int(w.ws_row)) }
        return (80, 24)
    }

    func draw(_ lines: [String]) {
        emit("\u{1B}[H" + lines.map { $0 + "\u{1B}[K" }.joined(separator: "\r\n"))
    }

    /// Waits up to the given time for a key; true for q, Q or Ctrl-C. Once
    /// standard input is at its end (/dev/null, `ssh -n`, a unit), poll
    /// would return at once for ever: it is left alone and the wait is a
    /// sleep, and only a signal ends the view.
    func quitRequested(waitingMilliseconds: Int32) -> Bool {
        if endingSignal != 0 { return true }
        var pfd = pollfd(fd: inputOpen ? 0 : -1, events: Int16(POLLIN), revents: 0)
        guard poll(&pfd, 1, waitingMilliseconds) > 0 else { return endingSignal != 0 }
        var byte: UInt8 = 0
        guard read(0, &byte, 1) == 1 else {
            inputOpen = false
            return isTerminal
        }
        return byte == UInt8(ascii: "q") || byte == UInt8(ascii: "Q") || byte == 3
    }

    /// After `restore`: a view a signal ended dies of it, as it would
    /// have without the handler, so that its parent sees why.
    func endAsSignalled() {
        guard endingSignal != 0 else { return }
        signal(endingSignal, SIG_DFL)
        raise(endingSignal)
    }

    func restore() {
        guard !restored else { return }
        restored = true
        if isTerminal { tcsetattr(0, TCSANOW, &saved) }
        emit("\u{1B}[?25h\r\n")
    }

    private func emit(_ text: String) {
        var t = text
        t.withUTF8 { _ = write(1, $0.baseAddress, $0.count) }
    }
}
