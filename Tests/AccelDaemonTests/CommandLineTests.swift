// SPDX-License-Identifier: Apache-2.0
import Foundation
import Testing
import TestSupport

/// What acceld's command line does before it serves: a mistake exits at
/// once with its code and a message that says what to do (cheap: no
/// daemon stays up), and the rate the options choose, as hello says it.
@Suite("acceld's command-line mistakes")
struct CommandLineMistakeTests {
    @Test("a socket path acceld cannot listen on: exit 73, saying why and what to pass instead")
    func cannotListen() throws {
        let tooLong = scratchDirectory() + "/" + String(repeating: "s", count: 120) + ".sock"
        let result = try acceld(["--simulate", "rest", "--socket", tooLong])
        #expect(result.status == 73)
        #expect(result.stderr.contains("cannot listen on \(tooLong): the path is longer than a Unix socket's 107 bytes; pass --socket PATH"), "\(result.stderr)")
    }

    @Test("--check-config accepts a good file and refuses a bad one with the line and reason")
    func checkConfig() throws {
        let good = try acceld(["--check-config", "--config", repositoryRoot + "/Config/acceld.conf", "--simulate", "rest"])
        #expect(good.status == 0)
        #expect(good.stdout.contains("configuration OK"))
        let scratch = scratchDirectory()
        try "[device]\npart = LIS302DL\nrate = 1000\n".write(toFile: scratch + "/bad.conf", atomically: true, encoding: .utf8)
        let bad = try acceld(["--check-config", "--config", scratch + "/bad.conf"])
        #expect(bad.status == 78)
        #expect(bad.stderr.contains("bad.conf:3: [device] rate: 1000 Hz is not available on the LIS302DL in normal mode: choose one of 100, 400"))
    }

    @Test("without --simulate and without hardware, the daemon exits with the bus's message and code")
    func noHardware() throws {
        let result = try acceld(["--bus", "250", "--socket", scratchDirectory() + "/x.sock"])
        #expect(result.status == 69)
        #expect(result.stderr.contains("no I2C bus at /dev/i2c-250"))
    }

    @Test("a [vibration] section that cannot work at the chip's rate stops acceld at start, naming the limit (exit 78)", arguments: [
        ("bearing = factors 3.585 5.415 2.357 0.398", "[vibration]: bearing orders need the shaft's frequency: set shaft = HZ"),
        ("envelope-band = 500-3000", "[vibration]: the envelope band (500.0 to 3000.0 Hz) reaches above 52.0 Hz, half the rate"),
        ("bearing = balls 9", "acceld.conf:2: [vibration] bearing: 'balls 9' is not a bearing: write factors BPFO BPFI BSF FTF"),
    ])
    func badVibrationSection(line: String, message: String) throws {
        let config = scratchDirectory() + "/acceld.conf"
        try "[vibration]\n\(line)\n".write(toFile: config, atomically: true, encoding: .utf8)
        let result = try run(acceldBinary, ["--simulate", "rest", "--part", "LSM6DSO", "--rate", "104", "--config", config,
                                            "--socket", scratchDirectory() + "/s.sock"])
        #expect(result.status == 78, "\(result.stderr)")
        #expect(result.stderr.contains(message), "\(result.stderr)")
    }

    @Test("a range, rate or mode the part lacks stops acceld with the part's valid values (exit 64)", arguments: [
        (["--part", "LIS331HH", "--range", "8"], "--range: ±8 g is not available on the LIS331HH: choose one of 6, 12, 24"),
        (["--part", "LIS3DH", "--rate", "5376"], "--rate: 5376 Hz is not available on the LIS3DH in high-resolution mode: choose one of 1, 10, 25, 50, 100, 200, 400, 1344"),
        (["--part", "LIS302DL", "--mode", "low-power"], "--mode: 'low-power' is not a mode of the LIS302DL: choose one of normal"),
        (["--part", "LIS331DLH", "--rate", "1000"], "--rate: 1000 Hz on the LIS331DLH, which has no FIFO, needs every sample read within 1.00 ms, which Linux does not promise: kHz rates need a part with a FIFO: LIS3DH, LIS2DH12, LSM6DSO, LSM6DSL, LSM6DS3; or choose one of 50, 100, 400"),
        (["--part", "LIS302DL", "--rate", "1344"], "1344 Hz is not available on the LIS302DL in normal mode: choose one of 100, 400 (kHz rates need a part with a FIFO: LIS3DH"),
        (["--part", "LIS3DHX"], "'LIS3DHX' is not a part this acceld drives: choose one of its table's (3-axis: H3LIS331DL, LIS2DH12, LIS302DL (or LIS331DL), LIS331DLH"),
    ])
    func badSettings(arguments: [String], message: String) throws {
        let result = try run(acceldBinary, ["--simulate", "rest", "--socket", scratchDirectory() + "/s.sock"] + arguments)
        #expect(result.status == 64)
        #expect(result.stderr.contains(message), "\(result.stderr)")
    }

    @Test("--rate 100 on the LSM6DSO is a usage error that lists its rates")
    func unsupported() throws {
        let result = try acceld(["--simulate", "tour", "--part", "LSM6DSO", "--rate", "100", "--socket", scratchDirectory() + "/s.sock"])
        #expect(result.status == 64)
        #expect(result.stderr.contains("--rate: 100 Hz is not available on the LSM6DSO") && result.stderr.contains("26, 52, 104, 208"),
                "\(result.stderr)")
    }

    @Test("--wake-on-motion: what it needs, each missing with its own message and code", arguments: [
        (["--simulate", "rest", "--wake-on-motion"], 64, "--wake-on-motion needs the chip's INT pin on a GPIO line, to hear the chip wake: give --interrupt CHIP:LINE"),
        (["--simulate", "rest", "--part", "LIS3DSH", "--interrupt", "model", "--wake-on-motion"], 78, "the LIS3DSH's wake-up unit is not in acceld's table of parts"),
        (["--simulate", "rest", "--interrupt", "model", "--wake-on-motion", "--still-seconds", "0"], 64, "--still-seconds 0.0 is out of range"),
    ] as [([String], Int32, String)])
    func mistakes(arguments: [String], status: Int32, message: String) throws {
        let result = try acceld(arguments + ["--socket", scratchDirectory() + "/x.sock"])
        #expect(result.status == status, "\(result.stderr)")
        #expect(result.stderr.contains(message), "\(result.stderr)")
    }

    @Test("the configuration file: wake-on-motion without a line is refused at its line, exit 78")
    func configurationWithoutLine() throws {
        let path = scratchDirectory() + "/wake.conf"
        try "[power]\nwake-on-motion = on\n".write(toFile: path, atomically: true, encoding: .utf8)
        let result = try acceld(["--check-config", "--config", path, "--simulate", "rest"])
        #expect(result.status == 78, "\(result.stderr)")
        #expect(result.stderr.contains("wake.conf:2: [power] wake-on-motion needs the chip's INT pin on a GPIO line"), "\(result.stderr)")
    }

    @Test("the INT line's mistakes, each with its own message and code", arguments: [
        (["--simulate", "--interrupt", "gpiochip0:3"], 64, "with --simulate the INT pin is the chip model's: give --interrupt model"),
        (["--interrupt", "model"], 64, "--interrupt model is the chip model's pin: it goes with --simulate"),
        (["--interrupt", "gpio chip"], 64, "give the GPIO line as CHIP:LINE"),
        (["--simulate", "--interrupt", "model", "--part", "LIS3DH", "--interrupt-pin", "int2"], 64, "the LIS3DH cannot put data-ready on its INT2 pin"),
        (["--simulate", "--interrupt", "model", "--interrupt-pin", "int3"], 64, "--interrupt-pin int3 is not a pin of the chip"),
        (["--bus", "250", "--interrupt", "gpiochip0:3"], 69, "no I2C bus at /dev/i2c-250"),
    ] as [([String], Int32, String)])
    func interruptLineMistakes(arguments: [String], status: Int32, message: String) throws {
        let result = try acceld(arguments + ["--socket", scratchDirectory() + "/x.sock"])
        #expect(result.status == status, "\(result.stderr)")
        #expect(result.stderr.contains(message), "\(result.stderr)")
    }
}

@Suite("rate = auto through acceld", .daemons)
struct AutomaticRateDaemonTests {
    private func helloRate(_ arguments: [String]) throws -> Int? {
        let daemon = try DaemonProcess(arguments)
        let device = try LineClient(path: daemon.socketPath).readMessage()?["device"] as? [String: Any]
        return device?["rate"] as? Int
    }

    @Test("--simulate tour --part LSM6DSO with no rate runs at 104 Hz")
    func sixAxis() throws {
        #expect(try helloRate(["--simulate", "tour", "--part", "LSM6DSO"]) == 104)
    }

    @Test("--rate auto says the same; the LIS3DH stays at 100 Hz")
    func explicitAuto() throws {
        #expect(try helloRate(["--simulate", "rest", "--part", "LSM6DSL", "--rate", "auto"]) == 104)
        #expect(try helloRate(["--simulate", "rest", "--part", "LIS3DH"]) == 100)
    }
}
