// SPDX-License-Identifier: Apache-2.0
@testable import AccelDaemon
import AccelDriver
import Testing
import TestSupport

/// What a watching client receives, on the in-process daemon: every frame
/// and event the chip model's motion makes, at the client's rate, with no
/// sample lost (virtual time: nothing starves the sampler).
@Suite("Streams, in process on virtual time")
struct StreamsInProcessTests {
    @Test("a subscribed client gets hello, then the orientations, a shake and a free fall in order, with contiguous sequence numbers")
    func scenario() throws {
        let daemon = try InProcessDaemon(motion: scenarioScript())
        let client = daemon.connect()
        let hello = try #require(client.readMessage())
        #expect(hello["class"] as? String == "hello")
        #expect(hello["protocol"] as? Int == 3, "the protocol docs/PROTOCOL.md describes")
        let device = try #require(hello["device"] as? [String: Any])
        #expect(device["chip"] as? String == "LIS302DL")
        #expect(device["range"] as? Int == 2 && device["rate"] as? Int == 100)
        let ack = try #require(client.request(#"{"class":"watch","streams":["frames","orientation","shake","freefall"]}"#))
        #expect(ack["class"] as? String == "watch")
        daemon.run(seconds: 10)
        var events: [String] = []
        var seqs: [Int] = []
        for message in client.readAll() {
            switch message["class"] as? String {
            case "frame": seqs.append(message["seq"] as! Int)
            case "orientation": events.append("orientation:\(message["orientation"]!)")
            case let name?: events.append("\(name):\(message["phase"] as? String ?? "")")
            case nil: Issue.record("a message without a class: \(message)")
            }
        }
        #expect(events == ["orientation:faceUp", "orientation:portrait", "orientation:faceUp", "shake:start", "shake:end",
                           "freefall:start", "freefall:confirmed", "freefall:end"])
        // Every sample the chip made, but for those the phase lock may lose as it starts (counted).
        let lost = daemon.sampler.counters.lost
        #expect(seqs.count >= 990 && seqs == seqs.sorted() && gaps(in: seqs) == lost && lost <= 3, "\(seqs.count) frames, \(lost) lost")
    }

    @Test("two clients at 10 Hz and 100 Hz get those rates; poll returns the latest frame")
    func ratesAndPoll() throws {
        let daemon = try InProcessDaemon()
        daemon.run(seconds: 1)  // the phase locked: from here, no sample is lost
        let slow = daemon.connect(), fast = daemon.connect()
        _ = slow.readMessage(); _ = fast.readMessage()
        #expect(slow.request(#"{"class":"watch","streams":["frames"],"rate":10}"#)?["rate"] as? Double == 10)
        #expect(fast.request(#"{"class":"watch","streams":["frames"],"rate":100}"#)?["rate"] as? Double == 100)
        daemon.run(seconds: 3)
        let slowFrames = frames(slow), fastFrames = frames(fast)
        try #require(slowFrames.count >= 29 && fastFrames.count >= 299, "\(slowFrames.count) and \(fastFrames.count) frames in 3 s")
        let slowSteps = steps(slowFrames), fastSteps = steps(fastFrames)
        #expect(slowSteps.allSatisfy { $0.seq == 10 && abs($0.t - 0.1) < 0.005 }, "10 Hz: every 10th sample")
        #expect(fastSteps.allSatisfy { $0.seq == 1 && abs($0.t - 0.01) < 0.001 }, "100 Hz: every sample")
        let poller = daemon.connect()
        _ = poller.readMessage()
        let poll = try #require(poller.request(#"{"class":"poll"}"#))
        let frame = try #require(poll["frame"] as? [String: Any])
        #expect(frame["class"] as? String == "frame" && frame["seq"] as? Int == fastFrames.last?.seq)
        let acc = try #require(frame["acc"] as? [Double])
        #expect(abs(acc[2] - 1) < 0.1)
    }

    @Test("clients at one rate get every n-th sample each, on different samples, so a crowd's writes are spread over the ticks")
    func decimationPhases() throws {
        let daemon = try InProcessDaemon(rate: 100)
        daemon.run(seconds: 1)
        let clients = (0..<4).map { _ in daemon.connect() }
        for client in clients {
            _ = client.readMessage()
            #expect(client.request(#"{"class":"watch","streams":["frames"],"rate":25}"#)?["rate"] as? Double == 25)
        }
        daemon.run(seconds: 1)
        var phases: Set<Int> = []
        for client in clients {
            let seqs = frames(client).map(\.seq)
            try #require(seqs.count >= 24)
            #expect(zip(seqs, seqs.dropFirst()).allSatisfy { $1 - $0 == 4 }, "\(seqs)")
            phases.insert(seqs[0] % 4)
        }
        #expect(phases.count == 4, "four clients at a quarter of the rate share no sample: \(phases)")
    }

    @Test("a client's frame rate stays what it asked for when another client changes the chip's rate")
    func rateSurvivesConfigure() throws {
        let daemon = try InProcessDaemon(rate: 100)
        let watcher = daemon.connect(), admin = daemon.connect()
        _ = watcher.readMessage(); _ = admin.readMessage()
        #expect(watcher.request(#"{"class":"watch","streams":["frames"],"rate":50}"#)?["rate"] as? Double == 50)
        daemon.run(seconds: 0.5)
        #expect(admin.request(#"{"class":"configure","rate":400}"#)?["rate"] as? Int == 400)
        _ = watcher.readAll()  // the frames at the old rate
        daemon.run(seconds: 2)
        let received = frames(watcher)
        try #require(received.count >= 95, "\(received.count) frames in 2 s")
        // The phase lock may lose a sample or two at the new rate: each a whole eighth apart all the same.
        let between = steps(received)
        #expect(between.allSatisfy { $0.seq % 8 == 0 }, "every eighth sample of 400 Hz: \(received.prefix(8).map(\.seq))")
        let median = between.map(\.t).sorted()[between.count / 2]
        #expect(abs(median - 0.02) < 0.001, "50 Hz asked for, the chip at 400 Hz: a frame every \(median) s")
    }

    private func frames(_ client: InProcessClient) -> [(seq: Int, t: Double)] {
        client.readAll().compactMap { message in
            guard message["class"] as? String == "frame" else { return nil }
            return (message["seq"] as! Int, message["t"] as! Double)
        }
    }

    private func steps(_ frames: [(seq: Int, t: Double)]) -> [(seq: Int, t: Double)] {
        zip(frames.dropFirst(), frames).map { ($0.seq - $1.seq, $0.t - $1.t) }
    }
}
