// SPDX-License-Identifier: Apache-2.0
import AccelCore
import AccelConfiguration
import AccelDaemon
@testable import AccelDriver
import AccelMotion
import AccelParts
import TestSupport
import Synchronization
import Testing

/// A kHz trace played as `--simulate` and `acceld replay` play it (issue
/// 49): through the part's low-pass, the chip model on its own clock and
/// the sampler, a 2 kHz line keeps its amplitude and grows no sidebands.
@Suite("A kHz trace through the chip model and the sampler")
struct FaithfulPlaybackTests {
    /// A still machine's gyroscope beside the line: a six-axis part
    /// refuses a trace without rates.
    let trace = {
        var trace = sineTrace(rate: 12_000, seconds: 1.5, lines: [(2_000, 0.5)])
        trace.rotationRates = trace.samples.map { _ in .zero }
        return trace
    }()

    /// The frames' x from 0.5 s on, half a second of them, and their rate.
    func judge(_ frames: [Frame], rate: Double) {
        let x = frames.drop { $0.t < 0.5 }.prefix(Int(rate / 2)).map(\.acceleration.x)
        let (amplitude, nearby) = lineAndNeighbours(Array(x), rate: rate, hertz: 2_000)
        #expect(abs(amplitude / 0.5 - 1) < 0.01, "amplitude \(amplitude) g")
        #expect(nearby < -60, "a line \(nearby) dB below it within 200 Hz")
    }

    @Test("as --simulate plays it: the LSM6DSO at 6,660 Hz on a clock 1 % fast, the sampler reading its FIFO")
    func simulated() throws {
        let played = DeviceSource.motion(TraceMotion(trace), sampledAt: 6_660)
        let rig = try SamplerRig(rate: 6_660, rateError: 0.01, motion: played, part: .lsm6dso)
        _ = try rig.sampler.queue.sync { try rig.sampler.allowLatency(milliseconds: 20) }
        rig.run(seconds: 1.2)
        #expect(rig.gaps == 0 && rig.frames.count > 6_660)
        judge(rig.frames, rate: 1e9 / Double(rig.model.periodNanoseconds))
    }

    @Test("as acceld replay plays it: the daemon's core on a virtual clock, frames to its one client")
    func replayed() throws {
        var configuration = Configuration()
        configuration.device.part = "LSM6DSO"
        configuration.device.rate = 6_660
        let frames = Mutex<[Frame]>([])
        let run = try ReplayRun(motion: TraceMotion(trace), configuration: configuration, seconds: 1.2) { output in
            if case .batch(let deliveries) = output { frames.withLock { $0 += deliveries.map(\.frame) } }
            if case .frame(let frame, _) = output { frames.withLock { $0.append(frame) } }
        }
        run.run()
        judge(frames.withLock { $0 }, rate: 6_660)
    }
}
