// SPDX-License-Identifier: Apache-2.0
import AccelConfiguration
import AccelCore
import AccelDriver
import AccelParts
import AccelTools
import Foundation
import Testing
import TestSupport

/// What a new user hit in the first ten minutes (issue #39), each pinned.
@Suite("The first ten minutes")
struct FirstTenMinutesTests {
    @Test("--simulate alone means the demo motion, wherever it stands, for acceld and accelctl")
    func bareSimulate() throws {
        #expect(expandingBareSimulate(["probe", "--simulate"]) == ["probe", "--simulate", "demo"])
        #expect(expandingBareSimulate(["watch", "--simulate", "--direct"]) == ["watch", "--simulate", "demo", "--direct"])
        #expect(expandingBareSimulate(["--simulate", "tour", "--part", "LIS3DH"]) == ["--simulate", "tour", "--part", "LIS3DH"])
        let probe = try accelctl(["probe", "--simulate"])
        #expect(probe.status == 0 && probe.stdout.contains("chip model (demo) 0x1c: WHO_AM_I 0x3b"), "\(probe.stderr)")
    }

    @Test("probe's next step, followed literally, tests the part probe found")
    func probeSuggestsThePart() throws {
        let probe = try accelctl(["probe", "--simulate", "rest", "--part", "LSM6DSO"])
        let suggestion = try #require(probe.stdout.components(separatedBy: "run accelctl ").last?.split(separator: "\n").first)
        #expect(suggestion == "selftest --simulate rest --address 0x6a --part LSM6DSO")
        let followed = try accelctl(suggestion.split(separator: " ").map(String.init))
        #expect(followed.stdout.contains("LSM6DSO"), "\(followed.stdout)")
    }

    @Test("an address that is none lists the table's addresses by part, for acceld, accelctl and the configuration")
    func addressAdvice() throws {
        for result in [try acceld(["--address", "0x99", "--simulate"]), try accelctl(["probe", "--address", "0x99"])] {
            #expect(result.status == 64)
            #expect(result.stderr.contains("0x18 or 0x19 (H3LIS331DL, LIS2DH12, LIS331DLH, LIS331HH, LIS3DH); 0x1c or 0x1d (LIS302DL)"), "\(result.stderr)")
            #expect(result.stderr.contains("0x6a or 0x6b (LSM6DS3, LSM6DSL, LSM6DSO)"))
        }
        #expect(throws: ConfigurationError.self) { try Configuration(parsing: "[device]\naddress = 0x99\n", source: "a.conf") }
        do { _ = try Configuration(parsing: "[device]\naddress = 0x99\n", source: "a.conf") } catch {
            #expect("\(error)".contains("0x6a or 0x6b"), "\(error)")
        }
    }

    @Test("--address the simulated part cannot strap to is a usage error, for acceld and accelctl; its own addresses are taken")
    func simulatedAddress() throws {
        for result in [try acceld(["--simulate", "rest", "--address", "0x20"]), try accelctl(["dump", "--simulate", "rest", "--address", "0x20"])] {
            #expect(result.status == 64, "\(result.stderr)")
            #expect(result.stderr.contains("--address 0x20: the chip model plays the LIS302DL, which answers at 0x1c or 0x1d only"), "\(result.stderr)")
        }
        let own = try accelctl(["dump", "--simulate", "rest", "--part", "LIS3DH", "--address", "0x19"])
        #expect(own.status == 0, "\(own.stderr)")
    }

    @Test("the parts are listed 3-axis then six-axis, each alphabetical, every alias beside its part")
    func partsInOrder() {
        #expect(ChipProfile.partNames == ["H3LIS331DL", "LIS2DH12", "LIS302DL", "LIS331DL", "LIS331DLH", "LIS331HH", "LIS3DH", "LIS3DSH",
                                          "LSM6DS3", "LSM6DSL", "LSM6DS3TR-C", "LSM6DSO", "LSM6DSOX"])
        #expect(DriverError.unknownPart("X").description.hasSuffix("(3-axis: H3LIS331DL, LIS2DH12, LIS302DL (or LIS331DL), LIS331DLH, LIS331HH, LIS3DH, LIS3DSH; six-axis: LSM6DS3, LSM6DSL (or LSM6DS3TR-C), LSM6DSO (or LSM6DSOX))"))
    }

    @Test("a missing bus points to --simulate; a missing configuration file names no line 0")
    func missingThings() throws {
        let bus = try acceld(["--bus", "97"])
        #expect(bus.status == 69 && bus.stderr.contains("--simulate runs on the chip model"), "\(bus.stderr)")
        let config = try acceld(["--config", "/nonexistent/acceld.conf"])
        #expect(config.stderr.contains("/nonexistent/acceld.conf: cannot read the configuration file (No such file or directory)"), "\(config.stderr)")
        #expect(!config.stderr.contains(":0:"))
    }

    @Test("a program given as --config is refused as binary, and none of its bytes reach the terminal")
    func binaryConfiguration() throws {
        let result = try acceld(["--config", "/bin/ls", "--simulate"])
        #expect(result.status == 78 && result.stderr.contains("/bin/ls: is not a configuration file: it holds binary data"), "\(result.stderr)")
        #expect(!result.stderr.unicodeScalars.contains { $0.value < 0x20 && $0 != "\n" }, "control characters: \(result.stderr.debugDescription)")
    }

    @Test("a socket in a folder whose own folder is missing names that folder, and no option the user already gave")
    func socketFolderMissing() throws {
        let result = try acceld(["--simulate", "rest", "--socket", "/tmp/acceld-no-such-folder-\(getpid())/sub/acceld.sock"])
        #expect(result.status == 73, "\(result.stderr)")
        #expect(result.stderr.contains("the folder /tmp/acceld-no-such-folder-\(getpid())/sub cannot be made"), "\(result.stderr)")
        #expect(!result.stderr.contains("pass --socket PATH"), "\(result.stderr)")
    }

    @Test("acceld --help shows the daemon's own options after the subcommands")
    func acceldHelp() throws {
        let help = try acceld(["--help"])
        #expect(help.status == 0)
        let run = try #require(help.stdout.components(separatedBy: "OPTIONS OF acceld run (the default subcommand):").last)
        for option in ["--simulate <motion>", "--part <part>", "--socket", "--config"] { #expect(run.contains(option), "\(option)") }
    }

    @Test("watch with standard input at its end draws at most 25 screens a second, not a busy loop")
    func watchWithoutTerminal() throws {
        let started = MonotonicTime.now()
        // 5 s: time for a starved host to start the binary and draw once;
        // the bound on screens grows with the time measured.
        let result = try run("/usr/bin/timeout", ["5", accelctlBinary, "watch", "--direct", "--simulate", "rest"])
        let seconds = Double(MonotonicTime.now() - started) / 1e9
        #expect(result.status == 124, "ran until stopped: \(result.stderr)")
        let screens = result.stdout.components(separatedBy: "\u{1B}[H").count - 1
        #expect(screens >= 1 && Double(screens) <= seconds * 25 + 2, "\(screens) screens in \(seconds) s")
    }

    @Test("watch --direct's shake and fall figures are the daemon pipeline's, as acceld replay gives them")
    func directFiguresAreTheDaemons() throws {
        let time = VirtualTime()
        let model = ChipModel(profile: .lis302dl, motion: MotionScript.named("demo")!, time: time)
        let driver = try Accelerometer(bus: model, time: time)
        try driver.configure(DeviceConfiguration(range: 2, rate: 100))
        var reader = DirectReader(driver: driver, time: time)
        var state = WatchState()
        while time.seconds < MotionScript.named("demo")!.duration {
            reader.readReady(into: &state, clock: .sinceStart(0))
            time.sleep(nanoseconds: UInt64(reader.keyWaitMilliseconds) * 1_000_000)
        }
        let replayed = try acceld(["replay", "demo", "--events-only"])
        func figure(_ lines: [String], _ pattern: Regex<(Substring, Substring)>) -> String? { lines.lazy.compactMap { $0.firstMatch(of: pattern)?.1 }.first.map(String.init) }
        let replayLines = replayed.stdout.split(separator: "\n").map(String.init)
        let shake = figure(replayLines, /"class":"shake","t":[0-9.]+,"phase":"end"[^}]*"duration":([0-9.]+)/)
        #expect(shake != nil && figure(state.events, /shake over: ([0-9.]+) s/).map { abs(Double($0)! - Double(shake!)!) < 0.015 } == true,
                "replay's shake \(shake ?? "none"), watch's \(state.events)")
        let height = figure(replayLines, /"class":"freefall"[^}]*"phase":"end"[^}]*"height":([0-9.]+)/)
        #expect(height != nil && figure(state.events, /free fall over: [0-9.]+ s, about ([0-9.]+) m/).map { abs(Double($0)! - Double(height!)!) < 0.015 } == true,
                "replay's fall \(height ?? "none"), watch's \(state.events)")
    }

    @Test("watch --direct on a six-axis part shows its rotation rate and yaw; on a 3-axis part neither")
    func directSixAxis() throws {
        for (profile, gyroscope) in [(ChipProfile.named("LSM6DSO")!, true), (.lis302dl, false)] {
            let time = VirtualTime()
            let model = ChipModel(profile: profile, motion: MotionScript.named("tour")!, time: time)
            let driver = try Accelerometer(bus: model, time: time)
            try driver.configure(driver.defaultConfiguration())
            var reader = DirectReader(driver: driver, time: time)
            var state = WatchState()
            var fastest = 0.0
            while time.seconds < 6 {
                reader.readReady(into: &state, clock: .sinceStart(0))
                fastest = max(fastest, state.rotationRate?.magnitude ?? 0)
                time.sleep(nanoseconds: UInt64(reader.keyWaitMilliseconds) * 1_000_000)
            }
            #expect((state.yaw != nil) == gyroscope && (state.rotationRate != nil) == gyroscope, "\(profile.name)")
            // The tour turns the board face by face: tens of °/s, not rad/s.
            #expect(!gyroscope || fastest > 20, "\(profile.name): fastest \(fastest) °/s")
        }
    }

    @Test("watch --direct reads every sample the chip makes, at 100 and 400 Hz", arguments: [100, 400])
    func directReaderMissesNone(rate: Int) throws {
        let time = VirtualTime()
        let model = ChipModel(profile: .lis302dl, motion: MotionScript.named("tour")!, time: time)
        let driver = try Accelerometer(bus: model, time: time)
        try driver.configure(DeviceConfiguration(range: 2, rate: rate))
        var reader = DirectReader(driver: driver, time: time)
        var state = WatchState()
        let made = model.counters.samplesProduced
        for _ in 0..<(rate * 5 * 2) {
            reader.readReady(into: &state, clock: .sinceStart(0))
            time.sleep(nanoseconds: UInt64(reader.keyWaitMilliseconds) * 1_000_000)
        }
        #expect(model.counters.samplesLost == 0)
        #expect(Int(reader.count) == model.counters.samplesProduced - made, "\(reader.count) read of \(model.counters.samplesProduced - made)")
        #expect(state.events.contains { $0.contains("orientation") }, "the tour's turns reach the pipeline: \(state.events)")
    }

    @Test("watch --direct on a data-ready bit stuck at 1 reads a sample a period, and comes back to draw")
    func directReaderStuckReady() throws {
        let time = VirtualTime()
        let model = ChipModel(profile: .lis302dl, motion: MotionScript.rest(), time: time)
        let driver = try Accelerometer(bus: model, time: time)
        try driver.configure(DeviceConfiguration(range: 2, rate: 100))
        model.dataReadyAlwaysSet = true
        var reader = DirectReader(driver: driver, time: time)
        var state = WatchState()
        for _ in 0..<100 {
            reader.readReady(into: &state, clock: .sinceStart(0))
            time.sleep(nanoseconds: UInt64(reader.keyWaitMilliseconds) * 1_000_000)
        }
        // 100 calls half a period apart: 50 periods, at most 2 reads a call.
        #expect(reader.count <= 200 && reader.count >= 50, "\(reader.count) reads")
    }

    @Test("a trace names the part it was recorded on; a six-axis part refuses a trace without rates")
    func traceParts() throws {
        let trace = try Trace(parsing: "# device: LSM6DSO at chip model (tour), ±2 g, 104 Hz\nt,x,y,z\n0,0,0,1\n0.01,0,0,1\n", source: "t.csv")
        #expect(trace.recordedPart?.name == "LSM6DSO")
        #expect(try Trace(parsing: "# device: iPhone Core Motion at 25 Hz\nt,x,y,z\n0,0,0,1\n", source: "p.csv").recordedPart == nil)
        let file = try temporaryFile(trace.text, name: "lsm6dso-no-rates.csv")
        let replayed = try acceld(["replay", file, "--events-only"])
        #expect(replayed.stderr.contains("playing the LSM6DSO, the part \(file) was recorded on"), "\(replayed.stderr)")
        #expect(replayed.status == 64 && replayed.stderr.contains("has no rotation rates (its header is t,x,y,z)"), "\(replayed.stderr)")
        let threeAxis = try acceld(["replay", file, "--events-only", "--part", "LIS3DH"])
        #expect(threeAxis.status == 0, "\(threeAxis.stderr)")
        let daemon = try acceld(["--simulate", file, "--part", "LSM6DSO", "--socket", scratchDirectory() + "/s.sock"])
        #expect(daemon.status == 64 && daemon.stderr.contains("--part LIS3DH"), "\(daemon.stderr)")
    }

    @Test("events and frames read in local time with milliseconds; a replay's in seconds since its start")
    func clocks() {
        let now = Double(MonotonicTime.now()) / 1e9
        let text = EventClock.wallClock.text(now)
        #expect(text.wholeMatch(of: /\d\d:\d\d:\d\d\.\d\d\d/) != nil, "\(text)")
        #expect(EventClock.sinceStart(10).text(12.5) == "+2.500 s")
        #expect(WallClock.localTime(unixSeconds: 0.9996).hasSuffix(":01.000"))
    }
}
