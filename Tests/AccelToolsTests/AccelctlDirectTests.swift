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

    @Test("probe --part LIS3DH names the LIS3DH at 0x18 it was told of, without asking for --part again")
    func probeLIS3DH() throws {
        let result = try accelctl(["probe", "--simulate", "rest", "--part", "LIS3DH"])
        #expect(result.status == 0)
        #expect(result.stdout.contains("0x18: WHO_AM_I 0x33: LIS3DH\n"), "\(result.stdout)")
        #expect(!result.stdout.contains("name yours with --part"), "\(result.stdout)")
        #expect(result.stdout.contains("run accelctl selftest --simulate rest --address 0x18 --part LIS3DH\n"), "the part named, once: \(result.stdout)")
    }

    @Test("probe --interrupt finds which pin reaches the line: INT1 at the chip's rate, INT2 nowhere", arguments: [("LIS302DL", true), ("LIS3DH", false)])
    func probeInterrupt(part: String, hasDataReadyOnInt2: Bool) throws {
        let result = try accelctl(["probe", "--simulate", "rest", "--part", part, "--interrupt", "model"])
        #expect(result.status == 0, "\(result.stderr)")
        // The figure is the host's as much as the chip's: data ready is
        // latched, so a read that comes a period late misses an edge (a
        // starved host once saw 71.4). What the user acts on is the verdict:
        // INT1, and a late probe said as such, never the wiring blamed; the
        // figure is exact on virtual time (InterruptWiringTests).
        let int1 = result.stdout.split(separator: "\n").first { $0.contains("INT1 reaches the chip model's INT1: ") }
        #expect(int1?.contains("set interrupt-pin = int1") == true && int1?.contains("weak pull") == false, "\(result.stdout)")
        let figure = int1.flatMap { $0.split(separator: ": ")[1].split(separator: " ").first }.flatMap { Double($0) }
        // The model's clock runs 1 % fast, as acceld's: 101 samples a second.
        #expect(figure.map { $0 <= 101.5 } == true, "never more edges than the chip's samples: \(result.stdout)")
        if int1?.contains("as it should") == true { #expect(figure.map { $0 >= 85 } == true, "\(result.stdout)") }
        let int2 = hasDataReadyOnInt2 ? "INT2 is wired nowhere: no edge on the chip model's INT1 in 0.5 s" : "INT2: the \(part) cannot put data ready on it; not tried"
        #expect(result.stdout.contains(int2), "\(result.stdout)")
    }

    @Test("probe --interrupt on a line that is not a GPIO chip's says so, with its code")
    func probeInterruptNotAChip() throws {
        let result = try accelctl(["probe", "--simulate", "rest", "--interrupt", "gpiochip0:1"])
        #expect(result.status == 64 && result.stderr.contains("with --simulate the line is the model's: --interrupt model"), "\(result.stderr)")
    }

    @Test("probe on a bus that does not exist says so once, with exit 69 and the chip model as the way on")
    func probeMissingBus() throws {
        let result = try accelctl(["probe", "--bus", "97", "--only-bus"])
        #expect(result.status == 69, "\(result.stdout)\(result.stderr)")
        #expect(result.stdout.components(separatedBy: "enable I2C on the board").count == 2, "the advice once: \(result.stdout)")
        #expect(result.stdout.contains("--simulate runs on the chip model"))
    }

    @Test("probe on an empty bus says nothing answered, with exit 68")
    func probeEmpty() throws {
        let result = try accelctl(["probe", "--simulate", "none"])
        #expect(result.status == 68)
        #expect(result.stdout.contains("nothing answered at 0x18, 0x19, 0x1c, 0x1d"))
    }

    @Test("watch ended by a signal, with standard input not the terminal, shows the cursor again and dies of that signal", arguments: ["TERM", "INT"])
    func watchEndedBySignal(signal: String) throws {
        // timeout sends the signal after a second, whenever the view got
        // to; whatever it had drawn, a hidden cursor must be shown again.
        let result = try run("/usr/bin/timeout", ["-s", signal, "1", accelctlBinary, "watch", "--direct", "--simulate", "rest"])
        #expect(result.status == 124, "timeout's own code for a command it stopped: \(result.stderr)")
        let hidden = result.stdout.range(of: "\u{1B}[?25l", options: .backwards)
        let shown = result.stdout.range(of: "\u{1B}[?25h", options: .backwards)
        #expect(hidden == nil || (shown != nil && shown!.lowerBound > hidden!.lowerBound), "the cursor left hidden: \(result.stdout.suffix(80).debugDescription)")
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
        expectEverySampleAccounted(trace, period: modelPeriodAt100Hz)
        #expect(abs(trace.samples.last!.z - 1) < 0.06)
        let replay = try acceld(["replay", file, "--events-only"])
        #expect(replay.stdout.contains("\"orientation\":\"faceUp\""))
    }

    @Test("accelctl replay, gone, says it is acceld replay's and how to run it (exit 64)")
    func replayMoved() throws {
        let result = try accelctl(["replay", "fall.csv", "--rate", "400"])
        #expect(result.status == 64 && result.stderr.contains("run acceld replay fall.csv --rate 400"), "\(result.stderr)")
        let help = try accelctl(["--help"]).stdout
        #expect(help.contains("  plot ") && !help.contains("  replay "), "no second replay among the subcommands: \(help)")
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
        expectEverySampleAccounted(trace, period: modelPeriodAt100Hz)
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

    @Test("plot's --shaft and --bearing read [vibration]'s spellings (n,d,D short for geometry); a wrong one is a usage error naming it")
    func plotMachineOptions() throws {
        // 2 s at 2 kHz: a 107.4 Hz line (the 6205's BPFO at 29.95 Hz) on x.
        var csv = "t,x,y,z\n"
        for k in 0..<4_000 {
            let t = Double(k) / 2_000
            csv += "\(t),\(0.1 * sin(2 * .pi * 107.4 * t)),0,1\n"
        }
        let path = try temporaryFile(csv, name: "machine.csv")
        let output = scratchDirectory()
        func plot(_ name: String, _ options: [String]) throws -> (status: Int32, svg: String?, stderr: String) {
            let result = try accelctl(["plot", path, "-o", "\(output)/\(name).svg", "--show", "spectrum"] + options)
            return (result.status, try? String(contentsOfFile: "\(output)/\(name).svg", encoding: .utf8), result.stderr)
        }
        let short = try plot("short", ["--shaft", "29.95", "--bearing", "9,7.94,39.04"])
        let long = try plot("long", ["--shaft", "29.95", "--bearing", "geometry 9 7.94 39.04"])
        #expect(short.status == 0 && long.status == 0, "\(short.stderr)\(long.stderr)")
        #expect(long.svg?.contains("bpfo") == true, "the bearing's orders marked")
        #expect(short.svg == long.svg, "one bearing, two spellings, one plot")
        let factors = try plot("factors", ["--shaft", "auto 20-40", "--bearing", "factors 3.585 5.415 2.357 0.398"])
        #expect(factors.status == 0, "\(factors.stderr)")
        let wrong: [([String], String)] = [
            (["--shaft", "fast"], "--shaft fast: 'fast' is not a shaft frequency: write HZ (29.95), auto LOW-HIGH (auto 10-60) or none"),
            (["--shaft", "30", "--bearing", "9,40,39"], "--bearing 9,40,39: 'geometry 9,40,39' is not a bearing's geometry: ELEMENTS is a whole number"),
            (["--band", "3000-500"], "--band 3000-500: '3000-500' is not a band: write LOW-HIGH in Hz"),
        ]
        for (options, message) in wrong {
            let result = try plot("wrong", options)
            #expect(result.status == 64 && result.stderr.contains(message), "\(options): \(result.stderr)")
        }
    }

    @Test("a malformed trace is refused with its line, exit 65")
    func badTrace() throws {
        let path = try temporaryFile("t,x,y\n", name: "bad-plot.csv")
        let result = try accelctl(["plot", path, "-o", "/tmp/never.svg"])
        #expect(result.status == 65)
        #expect(result.stderr.contains("bad-plot.csv:1: expected the header"))
    }
}

/// The count a recorder's `# lost: N samples` comment gives, or 0.
/// The chip model's period at 100 Hz: its clock runs fast by the board's
/// rate error, in accelctl as in acceld (`ChipModel.Imperfections.board`).
let modelPeriodAt100Hz = 0.01 / (1 + ChipModel.Imperfections.board.rateError)

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
