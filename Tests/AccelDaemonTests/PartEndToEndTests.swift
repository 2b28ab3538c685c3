// SPDX-License-Identifier: Apache-2.0
import AccelCore
import AccelDriver
import Foundation
import Testing
import TestSupport

#if canImport(Glibc)
import Glibc
#endif

@Suite("Parts and the FIFO, end to end", .serialized, .daemons)
struct PartEndToEndTests {
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
        (["--part", "LIS3DHX"], "'LIS3DHX' is not a part this acceld drives: choose one of its table's (3-axis: H3LIS331DL, LIS2DH12, LIS302DL (or LIS331DL), LIS331DLH"),
    ])
    func badSettings(arguments: [String], message: String) throws {
        let result = try run(acceldBinary, ["--simulate", "rest", "--socket", scratchDirectory() + "/s.sock"] + arguments)
        #expect(result.status == 64)
        #expect(result.stderr.contains(message), "\(result.stderr)")
    }

    @Test("acceld sample and replay take --part: the LIS331HH's 12-bit path, the LIS3DH's low-power mode")
    func sampleAndReplay() throws {
        let sample = try run(acceldBinary, ["sample", "--simulate", "rest", "--part", "LIS331HH", "--seconds", "0.2", "--every", "1"])
        #expect(sample.status == 0)
        #expect(sample.stdout.contains("# LIS331HH at chip model (rest), ±6 g, 100 Hz, normal mode (12-bit)"))
        #expect(sample.stdout.contains(" 333      1.000") || sample.stdout.contains("333"), "1 g is 333 digits at 3 mg")
        let replay = try run(acceldBinary, ["replay", "tour", "--part", "LIS3DH", "--mode", "low-power", "--rate", "400", "--events-only"])
        #expect(replay.status == 0)
        #expect(replay.stdout.contains(#""orientation":"portrait""#))
    }
}
