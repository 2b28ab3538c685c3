// SPDX-License-Identifier: Apache-2.0
import AccelConfiguration
import AccelCore
import AccelDriver
import Foundation
import Testing
import TestSupport

#if canImport(Glibc)
import Glibc
#endif

/// accelctl's commands that talk to acceld (here `SocketDaemon`), and its
/// live view in a terminal.
@Suite("accelctl through acceld", .serialized, .ownThread)
struct AccelctlDaemonTests {
    @Test("events --json --count prints exactly that many JSON lines; readable lines without --json")
    func events() throws {
        let daemon = try SocketDaemon(simulate: "drop")
        let json = try accelctl(["events", "--socket", daemon.socketPath, "--json", "--streams", "frames", "--rate", "50", "--count", "20"])
        #expect(json.status == 0)
        let lines = json.stdout.split(separator: "\n")
        #expect(lines.count == 20)
        for line in lines {
            let object = try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any]
            #expect(object?["class"] as? String == "frame")
        }
        // With a latency acceld sends frames in batches, and accelctl passes
        // each on in one write; the count still stops at the line, mid-batch.
        let batched = try accelctl(["events", "--socket", daemon.socketPath, "--json", "--streams", "frames", "--latency", "50", "--count", "7"])
        let seqs = batched.stdout.split(separator: "\n").compactMap {
            (try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any])?["seq"] as? Int
        }
        #expect(seqs.count == 7 && batched.stdout.split(separator: "\n").count == 7, "\(batched.stdout)")
        #expect(zip(seqs, seqs.dropFirst()).allSatisfy { $1 > $0 }, "in order: \(seqs)")
        // A drop is told three times: the early warning, the confirmation, the landing.
        let falls = try accelctl(["events", "freefall", "--socket", daemon.socketPath, "--count", "3", "--seconds", "8"])
        #expect(falls.stdout.contains("falling?") && falls.stdout.contains("free fall\n"), "\(falls.stdout)")
        #expect(falls.stdout.contains("free fall over:"), "\(falls.stdout)")
        daemon.stop()
    }

    /// Polls until pitch and roll move less than 0.1° over 30 samples (0.3 s
    /// of the chip's time: a starved daemon that made no sample between two
    /// polls would look steady in the host's), for up to 60 s.
    func waitForSteadyAttitude(_ socket: String) throws {
        let client = try LineClient(path: socket)
        _ = client.readMessage()
        func attitude() -> (seq: Int, angles: [Double]) {
            let frame = client.request(#"{"class":"poll"}"#)?["frame"] as? [String: Any]
            return (frame?["seq"] as? Int ?? -1, [frame?["pitch"] as? Double ?? .nan, frame?["roll"] as? Double ?? .nan])
        }
        var last = attitude()
        let deadline = Date().addingTimeInterval(60)
        while Date() < deadline {
            usleep(100_000)
            let now = attitude()
            guard now.seq >= last.seq + 30 else { continue }
            if zip(now.angles, last.angles).allSatisfy({ abs($0 - $1) < 0.1 }) { return }
            last = now
        }
        Issue.record("the attitude never settled: \(last)")
    }

    @Test("status speaks plain words; configure and zero reach the daemon")
    func statusConfigureZero() throws {
        let daemon = try SocketDaemon(simulate: "rest")
        let status = try accelctl(["status", "--socket", daemon.socketPath])
        #expect(status.status == 0)
        #expect(status.stdout.contains("device: LIS302DL at chip model (rest), ±2 g, 100 Hz, ok"))
        #expect(status.stdout.contains("samples published"))
        // Zeroed once the attitude is steady: the 8-bit part reads the
        // model's 12 mg offsets in 18 mg steps, so the gravity filter, which
        // starts from the first (noisy, quantized) sample, glides up to
        // about 1° over its first second (72 mg steps after a change to
        // ±8 g), and a reference taken meanwhile is not level a moment later.
        try waitForSteadyAttitude(daemon.socketPath)
        let zero = try accelctl(["zero", "--socket", daemon.socketPath, "--seconds", "1.5"])
        #expect(zero.stdout.contains("reference: pitch"))
        // "pitch -0.04°  roll 0.02°": relative to itself the board is level,
        // but for the model's noise. The reference is one filtered sample and
        // so is each line: their difference spreads about 0.3° (it once reached
        // 0.58°), within the part's step of 18 mg, about 1°, which no filter
        // of its samples can resolve.
        let angles = zero.stdout.split(separator: "\n").filter { $0.hasPrefix("pitch ") }
            .map { $0.split(separator: " ").compactMap { Double($0.trimmingCharacters(in: CharacterSet(charactersIn: "°"))) } }
        let step = asin(0.018) * 180 / .pi
        #expect(!angles.isEmpty && angles.allSatisfy { $0.count == 2 && $0.allSatisfy { abs($0) < step } },
                "relative to itself the board is level: \(zero.stdout)")
        let configure = try accelctl(["configure", "--socket", daemon.socketPath, "--range", "8", "--rate", "400"])
        #expect(configure.stdout.contains("±8 g, 400 Hz"), "\(configure.stderr)")
        let tunable = try accelctl(["configure", "--socket", daemon.socketPath, "--set", "shake.threshold=1.5"])
        #expect(tunable.stdout.contains("shake.threshold=1.5"))
        let bad = try accelctl(["configure", "--socket", daemon.socketPath, "--set", "shake.treshold=1.5"])
        #expect(bad.status == 65 && bad.stderr.contains("did you mean 'shake.threshold'?"))
        daemon.stop()
    }

    @Test("record from the daemon, then replay the file: the shake recorded is found again")
    func recordReplay() throws {
        let daemon = try SocketDaemon(simulate: "shake")
        let file = scratchDirectory() + "/shake.csv"
        let record = try accelctl(["record", "--socket", daemon.socketPath, "--seconds", "4", file])
        #expect(record.status == 0, "\(record.stderr)")
        daemon.stop()
        let trace = try Trace(contentsOf: file)
        #expect(trace.comments.contains { $0.contains("acceld at chip model (shake)") })
        // 4 s by accelctl's clock: at least 3 s of the chip's, whatever a
        // starved host lost (each lost sample accounted for, below).
        #expect(trace.duration > 3, "\(trace.count) rows over \(trace.duration) s")
        expectEverySampleAccounted(trace, period: modelPeriodAt100Hz)
        let replay = try acceld(["replay", file, "--events-only"])
        #expect(replay.stdout.contains("\"class\":\"shake\""), "\(replay.stdout)")
    }

    @Test("direct commands refuse while acceld owns the chip, and say how to stop it (exit 75)")
    func refusesWhileDaemonRuns() throws {
        let daemon = try SocketDaemon(simulate: "rest")
        let result = try accelctl(["dump", "--socket", daemon.socketPath])
        #expect(result.status == 75)
        #expect(result.stderr.contains("acceld is running and owns the chip"))
        #expect(result.stderr.contains("systemctl stop"))
        daemon.stop()
    }

    @Test("without a daemon the daemon commands say so (exit 69)")
    func noDaemon() throws {
        let result = try accelctl(["status", "--socket", "/nonexistent/acceld.sock"])
        #expect(result.status == 69)
        #expect(result.stderr.contains("acceld is not running"))
    }
}

@Suite("accelctl watch in a terminal", .ownThread, .enabled(if: FileManager.default.isExecutableFile(atPath: "/usr/bin/tmux")))
struct AccelctlWatchTests {
    func tmux(_ arguments: [String]) throws -> ProcessResult { try run("/usr/bin/tmux", arguments) }
    func tmuxStatus(_ arguments: [String]) throws -> Int32 { try runDetached("/usr/bin/tmux", arguments) }

    func capture(_ session: String, waitingFor shown: (String) -> Bool) throws -> String {
        var screen = ""
        for _ in 0..<50 {
            screen = try tmux(["capture-pane", "-p", "-t", session]).stdout
            if shown(screen) { break }
            usleep(100_000)
        }
        return screen
    }

    @Test("watch draws the axes, bars and orientation on an 80x24 terminal and quits on q", arguments: ["direct", "daemon"])
    func watch(mode: String) throws {
        let session = "accelctl-\(mode)-\(getpid())"
        var daemon: SocketDaemon?
        let command: String
        if mode == "direct" {
            command = "\(accelctlBinary) watch --direct --simulate rest"
        } else {
            daemon = try SocketDaemon(simulate: "rest")
            command = "\(accelctlBinary) watch --socket \(daemon!.socketPath)"
        }
        #expect(try runDetached("/usr/bin/tmux", ["new-session", "-d", "-s", session, "-x", "80", "-y", "24", command]) == 0)
        // Through acceld the orientation comes first, as its own message
        // when the client subscribes: the screen is drawn once a frame came too.
        let screen = try capture(session) { screen in
            screen.contains("orientation faceUp") && !screen.split(separator: "\n").contains {
                let line = $0.trimmingCharacters(in: .whitespaces)
                return line == "sample 0" || line.hasPrefix("sample 0 ")
            }
        }
        #expect(screen.contains("accelctl watch"))
        // z at rest: about +1 g (the model's noise moves the last digits).
        let z = screen.split(separator: "\n").first { $0.hasPrefix("z ") }
            .flatMap { Double($0.split(separator: " ")[1]) }
        #expect(z.map { abs($0 - 1) < 0.1 } == true, "\(screen)")
        #expect(screen.contains("[") && screen.contains("|") && screen.contains("#"))
        #expect(screen.contains("orientation faceUp"))
        #expect(screen.split(separator: "\n").allSatisfy { $0.count <= 80 })
        _ = try tmuxStatus(["send-keys", "-t", session, "q"])
        var gone = false
        for _ in 0..<30 where !gone {
            usleep(100_000)
            gone = try tmuxStatus(["has-session", "-t", session]) != 0
        }
        #expect(gone, "q quits")
        if !gone { _ = try tmuxStatus(["kill-session", "-t", session]) }
        daemon?.stop()
    }
}
