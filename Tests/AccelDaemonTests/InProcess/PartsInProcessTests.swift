// SPDX-License-Identifier: Apache-2.0
@testable import AccelDaemon
import AccelParts
import Testing
import TestSupport

/// Parts and the FIFO on the in-process daemon: what hello and the watch
/// reply say of the part, the FIFO watermark following the clients'
/// latency, and kHz rates, every sample published or counted lost.
@Suite("Parts and the FIFO, in process on virtual time")
struct PartsInProcessTests {
    @Test("--part LIS3DH: hello names the part, its mode and resolution; frames carry 1 g at rest")
    func helloNamesThePart() throws {
        let daemon = try InProcessDaemon(part: .lis3dh, rate: 400, mode: "normal")
        let client = daemon.connect()
        let device = try #require(client.readMessage()?["device"] as? [String: Any])
        #expect(device["chip"] as? String == "LIS3DH")
        #expect(device["mode"] as? String == "normal" && device["resolution"] as? Int == 10)
        #expect(device["range"] as? Int == 2 && device["rate"] as? Int == 400)
        #expect(device["fifo"] as? Int == 1, "no client asked for latency: each sample at once, the FIFO on for stalls")
        _ = client.request(#"{"class":"watch","streams":["frames"]}"#)
        daemon.run(seconds: 0.1)
        let acc = try #require(client.next("frame")?["acc"] as? [Double])
        #expect(abs(acc[2] - 1) < 0.05, "1 g at rest through the 10-bit path: \(acc)")
    }

    @Test("the watch reply names the fields frames carry: rotation only from a part with a gyroscope",
          arguments: [(ChipProfile.lis3dh, false), (.lsm6dso, true)])
    func watchNamesServedFields(part: ChipProfile, gyroscope: Bool) throws {
        let daemon = try InProcessDaemon(part: part, rate: part.automaticRate() ?? 100)  // as acceld --part alone
        let client = daemon.connect()
        _ = client.readMessage()
        let reply = try #require(client.request(#"{"class":"watch","streams":["frames"]}"#))
        let fields = reply["fields"] as? [String] ?? []
        #expect(fields == ["acc", "gravity", "user", "attitude"] + (gyroscope ? ["rotation"] : []), "\(fields)")
        daemon.run(seconds: 0.1)
        let frame = try #require(client.next("frame"))
        #expect((frame["rotationRate"] != nil) == gyroscope, "\(frame)")
    }

    @Test("a client's latency raises the FIFO's watermark and the sampler wakes once a batch; frames in order; a client without one sets it back to 1")
    func latencyBatches() throws {
        let daemon = try InProcessDaemon(part: .lis3dh, rate: 400)
        daemon.run(seconds: 0.5)
        let client = daemon.connect()
        _ = client.readMessage()
        let ack = try #require(client.request(#"{"class":"watch","streams":["frames","device"],"latency":50}"#))
        #expect(ack["latency"] as? Double == 50)
        #expect(daemon.connect().readMessage().flatMap { $0["device"] as? [String: Any] }?["fifo"] as? Int == 18,
                "50 ms at 400 Hz: 18 samples")
        let wakes = daemon.sampler.counters.wakes
        daemon.run(seconds: 2)
        let seqs = client.readAll().compactMap { $0["seq"] as? Int }
        #expect(seqs.count >= 780 && gaps(in: seqs) == 0, "in order, every sample: \(seqs.count)")
        let batchedWakes = daemon.sampler.counters.wakes - wakes
        #expect(batchedWakes < 60, "about one wake per 18 samples over 2 s: \(batchedWakes)")
        // A second client that allows no latency: samples one by one again.
        let eager = daemon.connect()
        _ = eager.readMessage()
        _ = eager.request(#"{"class":"watch","streams":["frames"]}"#)
        #expect(daemon.connect().readMessage().flatMap { $0["device"] as? [String: Any] }?["fifo"] as? Int == 1)
    }

    @Test("kHz rates: the FIFO batches what the bus needs; frames in order, every sample published or counted lost", arguments: [
        (ChipProfile.lsm6dso, nil as String?, 6_660, 127),  // no clock carries it at 400 kHz: half the FIFO
        (.lis3dh, "low-power", 5_376, 13),  // 400 kHz from 13 samples a read
    ])
    func kilohertz(part: ChipProfile, mode: String?, rate: Int, watermark: Int) throws {
        let daemon = try InProcessDaemon(part: part, rate: rate, mode: mode)
        let client = daemon.connect()
        let device = try #require(client.readMessage()?["device"] as? [String: Any])
        #expect(device["rate"] as? Int == rate && device["fifo"] as? Int == watermark, "\(device)")
        _ = client.request(#"{"class":"watch","streams":["frames"],"fields":["acc"]}"#)
        daemon.run(seconds: 3)
        var seqs: [Int] = [], dropped = 0
        for message in client.readAll() {
            if let seq = message["seq"] as? Int { seqs.append(seq) }
            if message["class"] as? String == "dropped" { dropped += message["count"] as? Int ?? 0 }
        }
        #expect((seqs.last ?? 0) - (seqs.first ?? 0) >= 3 * rate - 2 * watermark, "3 s of frames")
        #expect(zip(seqs.dropFirst(), seqs).allSatisfy { $0 > $1 }, "in order")
        #expect(gaps(in: seqs) <= dropped + daemon.sampler.counters.lost, "every sample published or counted lost")
    }
}
