// SPDX-License-Identifier: Apache-2.0
import AccelCore
import AccelDriver
import Foundation
import Testing
import TestSupport

#if canImport(Glibc)
import Glibc
#endif

/// CLOCK_MONOTONIC in seconds: the clock frames' `t` is on.
func monotonicSeconds() -> Double {
    var now = timespec()
    clock_gettime(CLOCK_MONOTONIC, &now)
    return Double(now.tv_sec) + Double(now.tv_nsec) / 1e9
}

/// The device as a new client's hello describes it.
func deviceInHello(_ daemon: DaemonProcess) throws -> [String: Any]? {
    try LineClient(path: daemon.socketPath).readMessage()?["device"] as? [String: Any]
}

@Suite("Parts and the FIFO, end to end", .serialized, .daemons)
struct PartEndToEndTests {
    @Test("acceld --simulate --part LIS3DH: hello names the part, its mode and resolution")
    func helloNamesThePart() throws {
        let daemon = try DaemonProcess(["--simulate", "rest", "--part", "LIS3DH", "--rate", "400", "--mode", "normal"])
        let client = try LineClient(path: daemon.socketPath)
        let hello = try #require(client.readMessage())
        let device = try #require(hello["device"] as? [String: Any])
        #expect(device["chip"] as? String == "LIS3DH")
        #expect(device["mode"] as? String == "normal" && device["resolution"] as? Int == 10)
        #expect(device["range"] as? Int == 2 && device["rate"] as? Int == 400)
        #expect(device["fifo"] as? Int == 1, "no client asked for latency: each sample at once, the FIFO on for stalls")
        _ = client.request(#"{"class":"watch","streams":["frames"]}"#)
        let frame = try #require(client.next("frame"))
        let acc = try #require(frame["acc"] as? [Double])
        #expect(abs(acc[2] - 1) < 0.05, "1 g at rest through the 10-bit path: \(acc)")
        #expect(daemon.stop() == 0)
    }

    @Test("the watch reply names the fields frames carry: rotation only from a part with a gyroscope", arguments: [("LIS3DH", false), ("LSM6DSO", true)])
    func watchNamesServedFields(part: String, gyroscope: Bool) throws {
        let daemon = try DaemonProcess(["--simulate", "rest", "--part", part])
        let client = try LineClient(path: daemon.socketPath)
        _ = client.readMessage()
        let reply = try #require(client.request(#"{"class":"watch","streams":["frames"]}"#))
        let fields = reply["fields"] as? [String] ?? []
        #expect(fields == ["acc", "gravity", "user", "attitude"] + (gyroscope ? ["rotation"] : []), "\(fields)")
        let frame = try #require(client.next("frame"))
        #expect((frame["rotationRate"] != nil) == gyroscope, "\(frame)")
        #expect(daemon.stop() == 0)
    }

    @Test("a client's latency raises the FIFO's watermark; frames come in batches, in order; a client without one sets it back to 1")
    func latencyBatches() throws {
        let daemon = try DaemonProcess(["--simulate", "rest", "--part", "LIS3DH", "--rate", "400"])
        let client = try LineClient(path: daemon.socketPath)
        _ = client.readMessage()
        let ack = try #require(client.request(#"{"class":"watch","streams":["frames","device"],"latency":50}"#))
        #expect(ack["latency"] as? Double == 50)
        Thread.sleep(forTimeInterval: 0.3)
        #expect(try deviceInHello(daemon)?["fifo"] as? Int == 18, "50 ms at 400 Hz: 18 samples")
        // Frames arrive in bursts: their age on arrival spreads over the
        // watermark's span instead of staying under a period.
        // Until the frames span 2 s of the chip's samples (however long a
        // starved host takes to deliver them).
        var seqs: [Int] = [], ages: [Double] = []
        let deadline = Date().addingTimeInterval(30)
        while Date() < deadline, (seqs.last ?? 0) - (seqs.first ?? 0) < 800 {
            guard let message = client.readMessage(timeout: 1), message["class"] as? String == "frame" else { continue }
            seqs.append(message["seq"] as! Int)
            ages.append(monotonicSeconds() - (message["t"] as! Double))
        }
        #expect((seqs.last ?? 0) - (seqs.first ?? 0) >= 800, "2 s of frames within 30 s")
        #expect(gaps(in: seqs) <= daemonLost(daemon.socketPath), "in order, every sample")
        let sorted = ages.sorted()
        #expect(sorted[sorted.count / 2] > 0.01, "batched: median age \(sorted[sorted.count / 2] * 1000) ms")
        // A second client that allows no latency: samples one by one again.
        let eager = try LineClient(path: daemon.socketPath)
        _ = eager.readMessage()
        _ = eager.request(#"{"class":"watch","streams":["frames"]}"#)
        Thread.sleep(forTimeInterval: 0.3)
        #expect(try deviceInHello(daemon)?["fifo"] as? Int == 1)
        #expect(daemon.stop() == 0)
    }

    @Test("kHz rates: the FIFO batches what the bus needs; frames in order, every sample published or counted lost", arguments: [
        (["--part", "LSM6DSO", "--rate", "6660"], 6_660, 127),  // no clock carries it at 400 kHz: half the FIFO
        (["--part", "LIS3DH", "--mode", "low-power", "--rate", "5376"], 5_376, 13),  // 400 kHz from 13 samples a read
    ])
    func kilohertz(arguments: [String], rate: Int, watermark: Int) throws {
        let daemon = try DaemonProcess(["--simulate", "rest"] + arguments)
        let client = try LineClient(path: daemon.socketPath)
        let device = try #require(client.readMessage()?["device"] as? [String: Any])
        #expect(device["rate"] as? Int == rate && device["fifo"] as? Int == watermark, "\(device)")
        _ = client.request(#"{"class":"watch","streams":["frames"],"fields":["acc"]}"#)
        // Until the frames span 3 s of the chip's samples, however long a
        // starved host takes; a client too slow for them is told by `dropped`.
        var seqs: [Int] = [], dropped = 0
        let deadline = Date().addingTimeInterval(60)
        while Date() < deadline, (seqs.last ?? 0) - (seqs.first ?? 0) < 3 * rate {
            guard let message = client.readMessage(timeout: 1) else { continue }
            switch message["class"] as? String {
            case "frame": seqs.append(message["seq"] as! Int)
            case "dropped": dropped += message["count"] as? Int ?? 0
            default: break
            }
        }
        #expect((seqs.last ?? 0) - (seqs.first ?? 0) >= 3 * rate, "3 s of frames within 60 s")
        #expect(zip(seqs.dropFirst(), seqs).allSatisfy { $0 > $1 }, "in order")
        #expect(gaps(in: seqs) <= dropped + daemonLost(daemon.socketPath), "every sample published or counted lost")
        #expect(daemon.stop() == 0)
    }

    @Test("vibration: each client's windows in order, the machine's line and its start, the configured machine's zone and orders; windows the rate cannot give are refused")
    func vibration() throws {
        // The simulated machine's shaft and bearing (VibrationMotion.machine), as a user would configure them.
        let config = scratchDirectory() + "/acceld.conf"
        try "[vibration]\nmachine-class = II\nshaft = auto 20-40\nbearing = geometry 9 7.94 39.04\n".write(toFile: config, atomically: true, encoding: .utf8)
        let daemon = try DaemonProcess(["--simulate", "machine", "--part", "LSM6DSO", "--rate", "1660", "--range", "16", "--config", config])
        let client = try LineClient(path: daemon.socketPath)
        _ = client.readMessage()
        let refused = try #require(client.request(#"{"class":"watch","streams":["vibration"],"vibration":{"window":0.1}}"#))
        #expect(refused["class"] as? String == "error" && (refused["message"] as? String ?? "").contains("at least 0.3 s"), "\(refused)")
        let reply = try #require(client.request(#"{"class":"watch","streams":["vibration","machine"],"vibration":{"window":0.5,"overlap":0.5,"spectrum":64}}"#))
        #expect((reply["vibration"] as? [String: Any])?["window"] as? Double == 0.5, "\(reply)")
        // Until the machine has started and run for two windows, however
        // long a starved host takes (it starts 2 s into the motion).
        var windows: [[String: Any]] = [], started: [String: Any]?
        let deadline = Date().addingTimeInterval(90)
        while Date() < deadline, started == nil || windows.filter({ $0["state"] as? String == "running" }).count < 2 {
            guard let message = client.readMessage(timeout: 1) else { continue }
            switch message["class"] as? String {
            case "vibration": windows.append(message)
            case "machine": started = message
            default: break
            }
        }
        let seqs = windows.compactMap { $0["seq"] as? Int }
        #expect(zip(seqs.dropFirst(), seqs).allSatisfy { $0 > $1 }, "in order: \(seqs)")
        #expect(started?["state"] as? String == "running" && started?["from"] as? String == "off", "\(started ?? [:])")
        let running = try #require(windows.last { $0["state"] as? String == "running" })
        let line = try #require((running["peaks"] as? [[Double]])?.first)
        #expect(abs(line[0] - 29.95) < 1, "the motor's line, within half a 2 Hz bin: \(line)")
        #expect(((running["spectrum"] as? [String: Any])?["amplitudes"] as? [Double])?.count == 64)
        #expect(["A", "B", "C", "D"].contains(running["zone"] as? String ?? ""), "class II judges the velocity: \(running)")
        #expect(abs((running["shaft"] as? Double ?? 0) - 29.95) < 1, "the shaft found within 20 to 40 Hz: \(running)")
        let orders = (running["orders"] as? [[String: Any]] ?? []).compactMap { $0["name"] as? String }
        #expect(orders == ["shaft", "bpfo", "bpfi", "bsf", "ftf"], "the bearing's orders from its geometry: \(orders)")
        #expect(client.request(#"{"class":"status"}"#)?["class"] as? String == "status", "the connection stays up")
        #expect(daemon.stop() == 0)
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
