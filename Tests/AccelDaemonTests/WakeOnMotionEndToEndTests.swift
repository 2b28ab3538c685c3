// SPDX-License-Identifier: Apache-2.0
import Foundation
import Testing
import TestSupport

/// acceld --wake-on-motion on the chip model's pin, as a client sees it:
/// the device stream tells of each sleep and wake-up, the first event
/// after a wake-up by the chip says so, and a frames watcher keeps it awake.
@Suite("Wake-on-motion, end to end", .serialized, .daemons)
struct WakeOnMotionEndToEndTests {
    static let arguments = ["--interrupt", "model", "--wake-on-motion", "--still-seconds", "1"]

    @Test("an events watcher on a board shaken every 4 s: asleep, awake by the chip, and the next event says \"wake\":\"chip\"")
    func sleepsBetweenShakes() throws {
        let daemon = try DaemonProcess(["--simulate", "shake", "--part", "LIS3DH"] + Self.arguments)
        let client = try LineClient(path: daemon.socketPath)
        _ = client.readMessage()
        _ = client.request(#"{"class":"watch","streams":["events","device"]}"#)
        var seen: [String] = []
        var marked: [String: Any]?
        // A guard against a daemon that never sleeps, not a measure: the
        // shake's loop sleeps and wakes it every 4 s of its clock.
        let deadline = Date().addingTimeInterval(60)
        while Date() < deadline, marked == nil {
            guard let message = client.readMessage(timeout: 1), let kind = message["class"] as? String else { continue }
            if kind == "device", let event = message["event"] as? String {
                seen.append(event)
                #expect(message["state"] as? String == (event == "asleep" ? "asleep" : "ok"))
            } else if message["wake"] != nil {
                marked = message
            }
        }
        #expect(Array(seen.prefix(2)) == ["asleep", "awake"], "\(seen)")
        let event = try #require(marked, "an event marked after the wake-up: \(seen)")
        #expect(event["wake"] as? String == "chip" && seen.last == "awake")
        let counters = try #require(client.request(#"{"class":"status"}"#)?["counters"] as? [String: Int])
        #expect(counters["sleeps"]! >= 1 && counters["wakeUps"]! >= 1 && counters["lost"] == 0)
        #expect(daemon.stop() == 0)
    }

    @Test("a frames watcher keeps it awake: frames on, numbered without a gap, and no sleep")
    func framesKeepItAwake() throws {
        let daemon = try DaemonProcess(["--simulate", "rest"] + Self.arguments)
        let client = try LineClient(path: daemon.socketPath)
        _ = client.readMessage()
        _ = client.request(#"{"class":"watch","streams":["frames","device"]}"#)
        var frames: [(seq: Int, t: Double)] = []
        var sleeps: [[String: Any]] = []
        let deadline = Date().addingTimeInterval(60)
        // Three seconds of the chip's own clock: three times the still time.
        while Date() < deadline, (frames.last?.t ?? 0) - (frames.first?.t ?? 0) < 3 {
            guard let message = client.readMessage(timeout: 1) else { continue }
            if message["class"] as? String == "frame" { frames.append((message["seq"] as! Int, message["t"] as! Double)) }
            if message["event"] as? String == "asleep" { sleeps.append(message) }
        }
        #expect(sleeps.isEmpty, "\(sleeps)")
        #expect(gaps(in: frames.map(\.seq)) <= daemonLost(daemon.socketPath))
        #expect(daemon.stop() == 0)
    }

    @Test("what it needs, each missing with its own message and code", arguments: [
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
}
