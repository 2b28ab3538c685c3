// SPDX-License-Identifier: Apache-2.0
import Foundation
import Testing
import TestSupport

/// acceld paced by the chip model's INT pin (`--interrupt model`), as a
/// client sees it: every sample numbered by its instant on the chip's own
/// clock, whatever the host's load did to the reads.
@Suite("Interrupt-paced acceld, end to end", .serialized, .ownThread)
struct InterruptEndToEndTests {
    @Test("data ready on INT1 at 400 Hz: sequence numbers and stamps agree with the chip's clock; one read per sample")
    func stampsOnTheChipsGrid() throws {
        let daemon = try SocketDaemon(simulate: "rest", rate: 400, interrupt: "model")
        let client = try LineClient(path: daemon.socketPath)
        _ = client.readMessage()
        // The edge clock fits its grid through the first edges (the period
        // is nominal until the second, and noisy over the next few): watch
        // once it has a window of them, however long a starved host took to
        // make them. The steps below are the fitted clock's.
        let settled = Date().addingTimeInterval(30)
        while Date() < settled, ((client.request(#"{"class":"status"}"#)?["counters"] as? [String: Int])?["published"] ?? 0) < 200 {
            Thread.sleep(forTimeInterval: 0.05)
        }
        _ = client.request(#"{"class":"watch","streams":["frames"]}"#)
        var frames: [(seq: Int, t: Double)] = []
        let deadline = Date().addingTimeInterval(30)
        while Date() < deadline, (frames.last?.seq ?? 0) - (frames.first?.seq ?? 0) < 800 {
            guard let frame = client.readMessage(timeout: 1), frame["class"] as? String == "frame" else { continue }
            frames.append((frame["seq"] as! Int, frame["t"] as! Double))
        }
        #expect(frames.count > 100, "frames within 30 s")
        #expect(gaps(in: frames.map(\.seq)) <= daemonLost(daemon.socketPath), "in order, every sample or counted lost")
        // The chip's period from the stamps over the whole run (t is printed
        // to the microsecond, so one step's own rounding is up to 1 µs: a
        // period taken from single steps is off by up to 0.5 µs, 16 µs
        // across a 32-sample gap a starved daemon left); each step is that
        // period times the step in sequence numbers.
        let steps = zip(frames.dropFirst(), frames).map { (periods: $0.seq - $1.seq, seconds: $0.t - $1.t) }
        let span = try #require(frames.last.map { ($0.seq - frames[0].seq, $0.t - frames[0].t) })
        let period = span.1 / Double(span.0)
        #expect(abs(period * 400 - 1 / 1.01) < 0.001, "the chip model runs 1 % fast: \(period * 1e6) µs")
        for step in steps {
            #expect(abs(step.seconds - Double(step.periods) * period) < 3e-6, "\(step.periods) periods in \(step.seconds * 1e6) µs")
        }
        let status = try #require(client.request(#"{"class":"status"}"#)?["counters"] as? [String: Int])
        #expect(status["published"]! <= status["wakes"]!, "no read holds two samples from the output registers")
        #expect(status["impossibleReady"] == 0 && status["reacquisitions"] == 0, "no phase lock at work")
        daemon.stop()
    }
}
