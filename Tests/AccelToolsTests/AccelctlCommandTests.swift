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

func accelctl(_ arguments: [String]) throws -> ProcessResult { try run(accelctlBinary, arguments) }

@Suite("accelctl on the chip model", .ownThread)
struct AccelctlDirectTests {
    @Test("probe finds the simulated chip at 0x1c and says what to do next")
    func probeFinds() throws {
        let result = try accelctl(["probe", "--simulate", "rest"])
        #expect(result.status == 0)
        #expect(result.stdout.contains("0x1c: WHO_AM_I 0x3b: LIS302DL/LIS331DL"))
        #expect(result.stdout.contains("found LIS302DL/LIS331DL at 0x1c on chip model (rest): run accelctl selftest"))
    }

    @Test("probe names a LIS3DH at 0x18 among the parts sharing its WHO_AM_I, and says how to choose")
    func probeLIS3DH() throws {
        let result = try accelctl(["probe", "--simulate", "rest", "--part", "LIS3DH"])
        #expect(result.status == 0)
        #expect(result.stdout.contains("0x18: WHO_AM_I 0x33: LIS3DH or LIS2DH12: these parts share WHO_AM_I 0x33 at different scales: name yours with --part"))
        #expect(result.stdout.contains("run accelctl selftest --simulate rest --address 0x18 --part LIS3DH\n"), "the part named, once: \(result.stdout)")
    }

    @Test("probe --interrupt finds which pin reaches the line: INT1 at the chip's rate, INT2 nowhere", arguments: [("LIS302DL", true), ("LIS3DH", false)])
    func probeInterrupt(part: String, hasDataReadyOnInt2: Bool) throws {
        let result = try accelctl(["probe", "--simulate", "rest", "--part", part, "--interrupt", "model"])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stdout.contains("INT1 reaches the chip model's INT1: 100.0 edges/s against the chip's 100 Hz, as it should; set interrupt-pin = int1"), "\(result.stdout)")
        let int2 = hasDataReadyOnInt2 ? "INT2 is wired nowhere: no edge on the chip model's INT1 in 0.5 s" : "INT2: the \(part) cannot put data ready on it; not tried"
        #expect(result.stdout.contains(int2), "\(result.stdout)")
    }

    @Test("probe --interrupt on a line that is not a GPIO chip's says so, with its code")
    func probeInterruptNotAChip() throws {
        let result = try accelctl(["probe", "--simulate", "rest", "--interrupt", "gpiochip0:1"])
        #expect(result.status == 64 && result.stderr.contains("with --simulate the line is the model's: --interrupt model"), "\(result.stderr)")
    }

    @Test("probe on an empty bus says nothing answered, with exit 68")
    func probeEmpty() throws {
        let result = try accelctl(["probe", "--simulate", "none"])
        #expect(result.status == 68)
        #expect(result.stdout.contains("nothing answered at 0x18, 0x19, 0x1c, 0x1d"))
    }

    @Test("dump lists every register with its value and decoded fields")
    func dump() throws {
        let result = try accelctl(["dump", "--simulate", "rest"])
        #expect(result.status == 0)
        #expect(result.stdout.contains("registers of the LIS302DL at chip model (rest)"))
        #expect(result.stdout.contains("0x0f  WHO_AM_I            0x3b  LIS302DL"))
        #expect(result.stdout.contains("0x20  CTRL_REG1           0x07  DR=0 PD=0 FS=0 STP=0 STM=0 Zen=1 Yen=1 Xen=1 · powered down, ±2 g"))
        #expect(result.stdout.contains("0x23  HP_FILTER_RESET     --    not read"))
        for name in ["CTRL_REG2", "CTRL_REG3", "STATUS_REG", "OUT_X", "OUT_Y", "OUT_Z", "FF_WU_CFG_1", "FF_WU_THS_2", "CLICK_CFG", "CLICK_Window"] {
            #expect(result.stdout.contains(name))
        }
    }

    @Test("dump decodes each part's own map by name", arguments: [
        ("LIS3DH", ["0x0f  WHO_AM_I            0x33  LIS3DH or LIS2DH12", "CTRL_REG4", "FIFO_CTRL_REG", "FIFO_SRC_REG", "0x39  CLICK_SRC           --    not read"]),
        ("LIS331HH", ["0x0f  WHO_AM_I            0x32  LIS331DLH or LIS331HH or H3LIS331DL", "0x20  CTRL_REG1           0x07  PM=0 DR=0 Zen=1 Yen=1 Xen=1 · powered down", "0x23  CTRL_REG4           0x00  BDU=0 BLE=0 FS=0 STsign=0 ST=0 SIM=0 · ±6 g"]),
        ("LIS3DSH", ["0x0f  WHO_AM_I            0x3f  LIS3DSH", "CTRL_REG6", "ADD_INC=0", "INFO1"]),
    ])
    func dumpParts(part: String, lines: [String]) throws {
        let result = try accelctl(["dump", "--simulate", "rest", "--part", part])
        #expect(result.status == 0)
        #expect(result.stdout.contains("registers of the \(part)"))
        for line in lines { #expect(result.stdout.contains(line), "\(line)\n\(result.stdout)") }
    }

    @Test("selftest passes on a healthy chip (exit 0) and fails on a stuck axis (exit 1) saying why")
    func selftest() throws {
        let good = try accelctl(["selftest", "--simulate", "rest"])
        #expect(good.status == 0)
        #expect(good.stdout.contains("LIS302DL self-test at ±2 g, normal mode: PASS"))
        let broken = try accelctl(["selftest", "--simulate", "rest", "--model-stuck", "x"])
        #expect(broken.status == 1)
        #expect(broken.stdout.contains("X: FAIL"))
        #expect(broken.stdout.contains("the axis is stuck"))
    }

    @Test("selftest follows each part's procedure; a part without one exits 64 saying so", arguments: [
        ("LIS3DH", 0, "LIS3DH self-test at ±2 g, normal mode: PASS"),
        ("LIS331DLH", 0, "LIS331DLH self-test at ±2 g, normal mode: PASS"),
        ("LIS331HH", 0, "LIS331HH self-test at ±6 g, normal mode: PASS"),
        ("H3LIS331DL", 64, "the H3LIS331DL has no self-test with published limits"),
    ] as [(String, Int32, String)])
    func selftestParts(part: String, status: Int32, text: String) throws {
        let result = try accelctl(["selftest", "--simulate", "rest", "--part", part])
        #expect(result.status == status)
        #expect((result.stdout + result.stderr).contains(text), "\(result.stdout)\(result.stderr)")
    }

    @Test("calibrate, turned through the six faces, recovers the model's offsets within 5 mg and scales within 1 %")
    func calibrate() throws {
        let scratch = scratchDirectory()
        // Each face held 2 s, 0.4 s turns: the guided procedure needs 1.5 s a face.
        let faces = [Vector3(0, 0, 1), Vector3(1, 0, 0), Vector3(0, 1, 0), Vector3(0, 0, -1), Vector3(-1, 0, 0), Vector3(0, -1, 0)]
        var segments: [MotionScript.Segment] = []
        for (i, face) in faces.enumerated() {
            segments.append(.hold(face, seconds: 2))
            segments.append(.rotate(from: face, to: faces[(i + 1) % faces.count], seconds: 0.4))
        }
        let script = MotionScript(name: "six", segments: segments, loops: false)
        var trace = Trace()
        for i in 0...Int(script.duration * 200) {
            trace.times.append(Double(i) / 200)
            trace.samples.append(script.specificForce(at: Double(i) / 200))
        }
        try trace.text.write(toFile: scratch + "/six.csv", atomically: true, encoding: .utf8)
        let output = scratch + "/calibration.json"
        let result = try accelctl(["calibrate", "--simulate", scratch + "/six.csv", "--model-offset", "0.036,-0.022,0.041",
                                   "--model-gain", "1.03,0.97,1.015", "--output", output, "--timeout", "30"])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stdout.contains("saved to \(output)"))
        #expect(result.stdout.contains("residual -Y up"))
        #expect(result.stderr.contains("averaging"), "progress is shown while it waits and averages")
        let calibration = try #require(try CalibrationStore(path: output).load())
        for (axis, offset, gain) in [(Axis.x, 0.036, 1.03), (.y, -0.022, 0.97), (.z, 0.041, 1.015)] {
            #expect(abs(calibration.offset[axis] - offset) < 0.005, "\(axis) offset \(calibration.offset[axis])")
            #expect(abs(calibration.scale[axis] * gain - 1) < 0.01, "\(axis) scale \(calibration.scale[axis])")
        }
    }

    @Test("rate measures the output data rate within the datasheet's tolerance, and the noise")
    func rate() throws {
        let result = try accelctl(["rate", "--simulate", "rest", "--seconds", "1", "--rate", "400"])
        #expect(result.stdout.contains("nominal 400 Hz"))
        // A machine too busy to poll in time (the whole suite at once) is
        // told so, exit 75, rather than given a wrong rate.
        if result.status == 75 {
            #expect(result.stderr.contains("the rate is not reliable"), "\(result.stderr)")
            return
        }
        #expect(result.status == 0, "\(result.stderr)")
        let measured = result.stdout.split(separator: "\n").first { $0.hasPrefix("output data rate:") }
            .flatMap { Double($0.split(separator: " ")[3]) }
        #expect(measured.map { abs($0 - 400) < 8 } == true, "\(result.stdout)")
        #expect(result.stdout.contains("noise at rest (RMS): x"))
    }

    @Test("record --direct writes a trace that parses, and replay reads it back")
    func recordDirect() throws {
        let file = scratchDirectory() + "/tour.csv"
        let record = try accelctl(["record", "--simulate", "rest", "--seconds", "1", file])
        #expect(record.status == 0, "\(record.stderr)")
        let trace = try Trace(contentsOf: file)
        #expect(trace.count > 20, "rows, though a starved machine loses many")
        expectEverySampleAccounted(trace, period: 0.01)
        #expect(abs(trace.samples.last!.z - 1) < 0.06)
        let replay = try accelctl(["replay", file, "--events-only"])
        #expect(replay.stdout.contains("\"orientation\":\"faceUp\""))
    }

    @Test("record --direct stopped for 0.3 s (SIGSTOP): the trace keeps the gap in t and counts the samples lost")
    func recordDirectStopped() throws {
        let directory = scratchDirectory(), file = directory + "/stopped.csv", progress = directory + "/stderr"
        let pid = try spawn(accelctlBinary, ["record", "--simulate", "rest", "--seconds", "3", file], stderrPath: progress)
        // Stop it once it is recording (its progress says 0 % at the first row).
        for _ in 0..<300 where !((try? String(contentsOfFile: progress, encoding: .utf8))?.contains("0%") ?? false) {
            usleep(10_000)
        }
        usleep(500_000)
        kill(pid, SIGSTOP)
        usleep(300_000)
        kill(pid, SIGCONT)
        var status: Int32 = 0
        while waitpid(pid, &status, 0) < 0 && errno == EINTR {}
        #expect(status == 0)
        let trace = try Trace(contentsOf: file)
        let steps = zip(trace.times.dropFirst(), trace.times).map { $0 - $1 }
        let gap = try #require(steps.max())
        #expect(gap > 0.28, "the stop shows as a gap in t")
        let lost = lostSamples(trace)
        #expect(lost >= Int(gap / 0.01) - 3 && lost >= 27, "\(lost) lost over a \(gap) s gap")
        expectEverySampleAccounted(trace, period: 0.01)
    }

    @Test("plot writes an SVG with three traces and the events marked")
    func plot() throws {
        let output = scratchDirectory() + "/fall.svg"
        let result = try accelctl(["plot", sharedData + "/freefall/fall_1.csv", "-o", output])
        #expect(result.status == 0)
        let svg = try String(contentsOfFile: output, encoding: .utf8)
        #expect(svg.hasPrefix("<?xml"))
        #expect(svg.components(separatedBy: "<polyline").count == 4)
        // The fall is a shaded span whose label gives the height.
        #expect(svg.contains("class=\"event-span\" data-kind=\"fall\""))
        #expect(svg.range(of: #">fall \d\.\d\d m</text>"#, options: .regularExpression) != nil, "\(svg.suffix(800))")
        let shakes = try accelctl(["plot", sharedData + "/shake/physilog_two_shakes.csv", "-o", output])
        #expect(shakes.status == 0)
        let shaken = try String(contentsOfFile: output, encoding: .utf8)
        #expect(shaken.components(separatedBy: "data-kind=\"shake\"").count - 1 == 2, "the recording's two shakes, each a span")
        let user = try accelctl(["plot", sharedData + "/freefall/fall_1.csv", "-o", output, "--show", "user", "--no-events"])
        #expect(user.status == 0)
        #expect(try String(contentsOfFile: output, encoding: .utf8).contains("user acceleration"))
    }

    @Test("a malformed trace is refused with its line, exit 65")
    func badTrace() throws {
        let path = try temporaryFile("t,x,y\n", name: "bad-plot.csv")
        let result = try accelctl(["plot", path, "-o", "/tmp/never.svg"])
        #expect(result.status == 65)
        #expect(result.stderr.contains("bad-plot.csv:1: expected the header"))
    }
}

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
        expectEverySampleAccounted(trace, period: 0.01 / 1.01)  // acceld --simulate runs the model 1 % fast
        let replay = try accelctl(["replay", file, "--events-only"])
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

    func capture(_ session: String, waitingFor text: String) throws -> String {
        var screen = ""
        for _ in 0..<50 {
            screen = try tmux(["capture-pane", "-p", "-t", session]).stdout
            if screen.contains(text) { break }
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
        let screen = try capture(session, waitingFor: "orientation faceUp")
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

/// The count a recorder's `# lost: N samples` comment gives, or 0.
func lostSamples(_ trace: Trace) -> Int {
    trace.comments.lazy.compactMap { comment -> Int? in
        guard comment.hasPrefix("lost: ") else { return nil }
        return Int(comment.dropFirst(6).prefix { $0.isNumber })
    }.first ?? 0
}

/// A loaded machine's reader (or daemon) may miss samples; a recorder must
/// account for them: rows written and samples lost together fill the
/// trace's span at the chip model's period. (A direct reader preempted in
/// the middle of a read may count one too many there: 1 in 20 allowed.)
func expectEverySampleAccounted(_ trace: Trace, period: Double, sourceLocation: SourceLocation = #_sourceLocation) {
    guard let first = trace.times.first, let last = trace.times.last else {
        Issue.record("an empty trace", sourceLocation: sourceLocation)
        return
    }
    let expected = Int(((last - first) / period).rounded()) + 1, lost = lostSamples(trace)
    if abs(trace.count + lost - expected) > 2 + lost / 20 {
        Issue.record("\(trace.count) rows and \(lost) lost over \(last - first) s, not \(expected)", sourceLocation: sourceLocation)
    }
}
