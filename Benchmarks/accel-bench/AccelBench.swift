// SPDX-License-Identifier: Apache-2.0
#if canImport(Glibc)
import Glibc
#endif
import AccelConfiguration
import AccelDaemon
import AccelCore
import AccelDriver
import AccelMotion
import AccelParts
import AccelProtocol
import ArgumentParser
import Dispatch

/// Benchmarks that print figures (docs/PERFORMANCE.md): medians of several
/// runs, and ratios where two things are compared. Not tests: machines here
/// are noisy. Build release: `make bench` does.
struct AccelBench: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "accel-bench",
        abstract: "Measure acceld's pipeline, replay, bus efficiency and behaviour under client load.",
        subcommands: [Pipeline.self, ReplaySpeed.self, Bus.self, Load.self, Floor.self, Signal.self, Vibration.self, Control.self]
    )
}

func median(_ values: [Double]) -> Double { values.sorted()[values.count / 2] }

func now() -> Double { Double(MonotonicTime.now()) / 1e9 }

/// The demo motion sampled at `rate` with a little noise: what the pipeline
/// sees on a real board. With `gyroscope`, each sample also carries the
/// rate that turns the board from its "up" to the next (dv/dt × v).
func demoSamples(count: Int, rate: Double, gyroscope: Bool = false) -> [Sample] {
    let motion = MotionScript.demo()
    var random = SeededRandom(seed: 42)
    return (0..<count).map { i in
        let t = Double(i) / rate
        let g = motion.specificForce(at: t) + Vector3(random.gaussian(), random.gaussian(), random.gaussian()) * 0.005
        guard gyroscope else { return Sample(seq: UInt64(i), t: t, counts: Counts(0, 0, 0), g: g) }
        let up = motion.specificForce(at: t).normalized, next = motion.specificForce(at: t + 1 / rate).normalized
        let turn = ((next - up) * rate).cross(up) + Vector3(random.gaussian(), random.gaussian(), random.gaussian()) * 0.0005
        return Sample(seq: UInt64(i), t: t, counts: Counts(0, 0, 0), g: g, rotationRate: turn)
    }
}

struct Pipeline: ParsableCommand {
    static let configuration = CommandConfiguration(abstract: "Samples per second through the whole pipeline (filters, attitude, all detectors), without and with a gyroscope.")

    @Option(help: "Samples per run.")
    var samples = 1_000_000

    @Option(help: "Runs; the median is reported.")
    var runs = 5

    func run() {
        measure(gyroscope: false)
        measure(gyroscope: true)
    }

    private func measure(gyroscope: Bool) {
        let input = demoSamples(count: samples, rate: 400, gyroscope: gyroscope)
        var rates: [Double] = []
        var eventCount = 0
        for _ in 0..<runs {
            var pipeline = MotionPipeline()
            var events: [MotionEvent] = []
            events.reserveCapacity(16)
            var checksum = 0.0
            let start = now()
            for sample in input {
                let frame = pipeline.process(sample, events: &events)
                checksum += frame.user.x
                eventCount += events.count
                events.removeAll(keepingCapacity: true)
            }
            let elapsed = now() - start
            rates.append(Double(samples) / elapsed)
            if checksum.isNaN { print("impossible") }
        }
        let rate = median(rates)
        print("pipeline\(gyroscope ? " with gyroscope (fusion)" : ""): \(fixed(rate / 1e6, 2)) million samples/s (median of \(runs) runs of \(samples); \(fixed(1e9 / rate, 0)) ns per sample; \(eventCount / runs) events a run); target 2 million/s")
    }
}

struct ReplaySpeed: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "replay",
        abstract: "acceld replay end to end (chip model, sampler, pipeline, hub, NDJSON of what the client watches) to /dev/null, against real time.",
        discussion: """
            Default: the demo motion at 400 Hz, frames and events. The
            vibration figure: --motion machine --part LSM6DSO --rate 6660
            --streams vibration,machine.
            """)

    @Option(help: "Minutes of motion to replay (the demo is repeated; a built-in motion such as machine loops).")
    var minutes = 10.0

    @Option(help: "A built-in motion or a trace file (default: the demo, repeated).")
    var motion: String?

    @Option(help: "The part the chip model plays.")
    var part = "LIS302DL"

    @Option(help: "Output data rate, Hz.")
    var rate = 400

    @Option(help: "The streams the client watches, comma-separated.")
    var streams = "frames,events"

    @Option(help: "Runs; the median is reported.")
    var runs = 3

    func run() throws {
        let played = try playedMotion()
        var configuration = Configuration()
        configuration.device.part = part
        configuration.device.rate = rate
        let watched = try StreamName.parse(streams.split(separator: ",").map(String.init))
        let request = Request.watch(streams: watched, rate: nil, fields: .all, latency: nil,
                                    vibration: watched.contains(.vibration) ? VibrationWatch() : nil)
        let devNull = open("/dev/null", O_WRONLY)
        var speeds: [Double] = []
        var lines = 0
        for _ in 0..<runs {
            nonisolated(unsafe) let writer = LineWriter(fd: devNull)
            let counted = Counter()
            let start = now()
            let replay = try ReplayRun(motion: played, configuration: configuration, seconds: minutes * 60)
            try replay.watch(request) { line in
                writer.write(bytes: line)
                counted.add()
            }
            replay.run()
            writer.flush()
            speeds.append(min(played.duration, minutes * 60) / (now() - start))
            lines = counted.value
        }
        print("replay of \(played.name) on the \(part) at \(rate) Hz, \(streams): \(fixed(median(speeds), 0))x real time (median of \(runs) runs; \(fixed(min(played.duration, minutes * 60) / 60, 1)) min of motion, \(lines) NDJSON lines a run; release build); target 100x (kHz, vibration) or 2000x (400 Hz, frames)")
    }

    private func playedMotion() throws -> any MotionSource {
        guard let motion else {
            let demo = MotionScript.demo()
            let rounds = Int((minutes * 60 / demo.duration).rounded(.up))
            return MotionScript(name: "demo x\(rounds)", segments: Array(repeating: demo.segments, count: rounds).flatMap { $0 }, loops: false)
        }
        return try DeviceSource.motion(named: motion)
    }
}

/// Lines counted as they are written (from the queue the run writes on).
private final class Counter: @unchecked Sendable {
    // (Unchecked: one queue at a time writes, each drained before the next.)
    private(set) var value = 0
    func add() { value += 1 }
}

struct Bus: ParsableCommand {
    static let configuration = CommandConfiguration(abstract: "Transactions, bytes and reads per published sample, live (DispatchSourceTimer, real clock) on the chip model.")

    @Option(help: "Seconds to sample.")
    var seconds = 10.0

    @Option(help: "Output data rate, Hz.")
    var rate = 400

    @Option(help: "The model's clock error (the datasheet allows ±10 %).")
    var rateError = 0.01

    func run() throws {
        let time = MonotonicTime()
        var flaws = ChipModel.Imperfections()
        flaws.rateError = rateError
        flaws.noise = 0.009
        let model = ChipModel(motion: MotionScript.demo(), time: time, imperfections: flaws)
        let sampler = Sampler(connect: { try Accelerometer(bus: model, time: time) },
                              configuration: DeviceConfiguration(range: 2, rate: rate), settings: MotionSettings(), time: time)
        try sampler.open()
        let before = model.counters
        sampler.queue.sync { sampler.start() }
        usleep(UInt32(seconds * 1e6))
        let (counters, chip) = sampler.queue.sync {
            sampler.stop(powerDown: false)
            return (sampler.counters, model.counters)
        }
        let published = Double(counters.published)
        let transactions = Double(chip.transactions - before.transactions)
        let bytes = Double(chip.bytesRead - before.bytesRead)
        let bursts = Double(counters.published + counters.emptyReads)
        print("bus at \(rate) Hz, chip clock \(rateError >= 0 ? "+" : "")\(fixed(rateError * 100, 1)) %, \(fixed(seconds, 0)) s: \(counters.published) samples published, \(counters.lost) lost, \(counters.overruns) overruns")
        print("  bursts per published sample: \(fixed(bursts / published, 3)) (target at most 1.05)")
        print("  transactions per published sample: \(fixed(transactions / published, 3)), bytes read per published sample: \(fixed(bytes / published, 2)) (each burst is 1 transaction of 7 bytes)")
    }
}
