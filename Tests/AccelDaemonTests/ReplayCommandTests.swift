// SPDX-License-Identifier: Apache-2.0
import AccelDriver
import AccelEvaluation
import Foundation
import Testing
import TestSupport

@Suite("acceld replay, the command")
struct ReplayCommandTests {
    @Test("the same recording gives byte-identical NDJSON, every line a JSON object with a class")
    func deterministic() throws {
        let arguments = ["replay", sharedData + "/freefall/up_and_down_2.csv", "--rate", "400"]
        let first = try acceld(arguments), second = try acceld(arguments)
        #expect(first.status == 0)
        #expect(first.stdout == second.stdout)
        let lines = first.stdout.split(separator: "\n")
        #expect(lines.count > 1500)
        for line in lines.prefix(50) + lines.suffix(50) {
            let object = try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any]
            #expect(object?["class"] is String)
        }
        #expect(lines.contains { $0.contains("\"class\":\"freefall\"") && $0.contains("\"phase\":\"end\"") })
    }

    @Test("a frame carries seq, t, acceleration, gravity, user acceleration, pitch and roll")
    func frameSchema() throws {
        let result = try acceld(["replay", "rest"])
        let first = try #require(result.stdout.split(separator: "\n").first)
        let frame = try #require(try JSONSerialization.jsonObject(with: Data(first.utf8)) as? [String: Any])
        #expect(frame["class"] as? String == "frame")
        for key in ["seq", "t", "acc", "gravity", "user", "pitch", "roll"] { #expect(frame[key] != nil, "\(key)") }
        #expect((frame["acc"] as? [Double])?.count == 3)
    }

    @Test("a malformed trace is refused with its line number and a non-zero exit")
    func malformedTrace() throws {
        let path = try temporaryFile("t,x,y,z\n0,0,0,1\n0.01,0,0\n", name: "bad.csv")
        let result = try acceld(["replay", path])
        #expect(result.status == 65)
        #expect(result.stderr.contains("bad.csv:3: expected 4 comma-separated values"))
        #expect(result.stdout.isEmpty)
    }

    @Test("a trace with rotation rates replays on a part without a gyroscope, saying they are ignored")
    func rotationIgnored() throws {
        let path = try temporaryFile("t,x,y,z,wx,wy,wz\n0,0,0,1,0,0,0.5\n0.5,0,0,1,0,0,0.5\n", name: "turn.csv")
        let result = try acceld(["replay", path, "--part", "LIS3DH"])
        #expect(result.status == 0)
        #expect(result.stderr.contains("turn.csv has rotation rates (wx,wy,wz); the LIS3DH has no gyroscope, so they are ignored"))
        #expect(result.stdout.contains(#""class":"frame""#))
        let plain = try acceld(["replay", try temporaryFile("t,x,y,z\n0,0,0,1\n0.5,0,0,1\n", name: "still.csv")])
        #expect(!plain.stderr.contains("rotation"), "no notice for an accelerometer's trace")
    }

    @Test("a one-axis trace (t,a) plays on the axis --axis names, the board lying flat and still, saying so; without --axis it is refused, naming the flag")
    func oneAxisTrace() throws {
        let path = try temporaryFile("# AC-coupled\nt,a\n0,0.25\n0.5,0.25\n1,0.25\n", name: "bearing.csv")
        let refused = try acceld(["replay", path, "--part", "LSM6DSO"])
        #expect(refused.status == 65 && refused.stderr.contains("bearing.csv:2: a one-axis trace ('t,a'): say which of the board's axes it was measured on (--axis x, y or z)"), "\(refused.status) \(refused.stderr)")
        let result = try acceld(["replay", path, "--part", "LSM6DSO", "--axis", "y"])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stderr.contains("bearing.csv has no rotation rates: the LSM6DSO's gyroscope reads a board that does not turn, as it is one axis (y) of a board lying flat"))
        let frame = try #require(result.stdout.split(separator: "\n").first { $0.contains(#""class":"frame""#) })
        #expect(frame.contains(#""acc":[0.0000,0.2500,1.0000]"#), "\(frame)")
        let bad = try acceld(["replay", path, "--axis", "w"])
        #expect(bad.status == 64 && bad.stderr.contains("--axis w is not an axis of the board: use x, y or z"))
    }

    @Test("a three-axis trace without rates on a six-axis part: refused, pointing at --still-gyroscope, which plays it with a gyroscope reading zero")
    func stillGyroscope() throws {
        let path = try temporaryFile("t,x,y,z\n0,0,0,1\n0.5,0,0,1\n", name: "machine.csv")
        let refused = try acceld(["replay", path, "--part", "LSM6DSO"])
        #expect(refused.status == 64 && refused.stderr.contains("say so with --still-gyroscope"), "\(refused.stderr)")
        let result = try acceld(["replay", path, "--part", "LSM6DSO", "--still-gyroscope"])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stderr.contains("--still-gyroscope says the board was still"))
        #expect(result.stdout.contains(#""rotationRate":[0.00000,0.00000,0.00000]"#), "\(result.stdout.prefix(300))")
    }

    @Test("a kHz trace replays at the part's rate through an anti-aliasing low-pass, saying so: its 5,010 Hz ringing does not fold to 10 Hz")
    func kHzTrace() throws {
        let rows = (0..<10_000).map { i -> String in
            let t = Double(i) / 20_000
            return "\(t),\(0.5 * sin(2 * Double.pi * 5_010 * t)),0,1"
        }
        let path = try temporaryFile("t,x,y,z\n" + rows.joined(separator: "\n") + "\n", name: "ringing.csv")
        let result = try acceld(["replay", path, "--part", "LIS3DH", "--rate", "400"])
        #expect(result.status == 0)
        #expect(result.stderr.contains("ringing.csv was recorded at 20000 Hz: the part reads it at 400 Hz through an anti-aliasing low-pass at 160 Hz"), "\(result.stderr)")
        let frames = result.stdout.split(separator: "\n").compactMap { line -> (t: Double, x: Double)? in
            guard let object = try? JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any], object["class"] as? String == "frame",
                  let t = object["t"] as? Double, let x = (object["acc"] as? [Double])?.first else { return nil }
            return (t, x)
        }
        #expect(frames.count > 150, "half a second at 400 Hz")
        // Rows taken as they are would show a 10 Hz wave of 0.5 g.
        let largest = frames.dropFirst(20).dropLast(20).map { abs($0.x) }.max() ?? 1
        #expect(largest < 0.02, "what is left of the ringing: \(largest) g")
    }

    @Test("merge-rotation.py pairs a coremotion/ recording with its rotation/ rates, row for row, into a trace acceld replays")
    func mergedRotation() throws {
        let name = "u_03-shake-it-data.csv"
        let merged = try run("/usr/bin/python3", [repositoryRoot + "/scripts/merge-rotation.py",
                                                  sharedData + "/coremotion/" + name, sharedData + "/rotation/" + name])
        #expect(merged.status == 0, "\(merged.stderr)")
        let trace = try Trace(parsing: merged.stdout, source: "merged")
        let accelerometer = try Trace(contentsOf: sharedData + "/coremotion/" + name)
        let rotation = try DevelopmentData(root: sharedData).rotation(for: "coremotion/" + name)
        #expect(trace.samples == accelerometer.samples && trace.times == accelerometer.times)
        #expect(trace.rotationRates == rotation.samples)
        let path = try temporaryFile(merged.stdout, name: name)
        let replay = try acceld(["replay", path, "--events-only"])
        #expect(replay.status == 0 && replay.stderr.contains("has rotation rates (wx,wy,wz)"))
        let mismatched = try run("/usr/bin/python3", [repositoryRoot + "/scripts/merge-rotation.py",
                                                      sharedData + "/coremotion/" + name, sharedData + "/rotation/u_03-chop-it-data.csv"])
        #expect(mismatched.status != 0 && mismatched.stderr.contains("must pair up row for row"))
    }

    @Test("a bad configuration is refused with the key and the reason, exit 78")
    func badConfiguration() throws {
        let config = try temporaryFile("[shake]\ntreshold = 1\n", name: "bad.conf")
        let result = try acceld(["replay", "rest", "--config", config])
        #expect(result.status == 78)
        #expect(result.stderr.contains("bad.conf:2: unknown key 'treshold' in [shake]; did you mean 'threshold'?"))
    }

    @Test("a configuration changes what replay detects")
    func configurationApplies() throws {
        let strict = try temporaryFile("[freefall]\nminimum-seconds = 2\n", name: "strict.conf")
        let file = sharedData + "/freefall/fall_1.csv"
        #expect(try acceld(["replay", file, "--events-only"]).stdout.contains("freefall"))
        #expect(!(try acceld(["replay", file, "--events-only", "--config", strict]).stdout.contains("freefall")))
    }

    @Test("an unsupported rate is refused with the choices")
    func badRate() throws {
        let result = try acceld(["replay", "rest", "--rate", "200"])
        #expect(result.status == 64)
        #expect(result.stderr.contains("--rate: 200 Hz is not available on the LIS302DL in normal mode: choose one of 100, 400"))
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

@Suite("acceld sample, the command")
struct SampleCommandTests {
    @Test("prints converted samples from the chip model when asked to simulate")
    func simulated() throws {
        let result = try acceld(["sample", "--simulate", "rest", "--seconds", "0.3", "--every", "5"])
        #expect(result.status == 0)
        #expect(result.stdout.contains("LIS302DL"))
        #expect(result.stdout.contains("1.008"), "56 digits × 18 mg on Z at rest")
    }

    @Test("never falls back to simulation: a missing bus is an error with its own exit code")
    func missingBus() throws {
        let result = try acceld(["sample", "--bus", "250"])
        #expect(result.status == 69)
        #expect(result.stderr.contains("no I2C bus at /dev/i2c-250"))
    }
}
