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
import AccelReplay
import ArgumentParser
import Dispatch

/// Benchmarks that print figures (docs/PERFORMANCE.md): medians of several
/// runs, and ratios where two things are compared. Not tests: machines here
/// are noisy. Build release: `make bench` does.
struct AccelBench: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "accel-bench",
        abstract: "Measure acceld's pipeline, replay, bus efficiency and behaviour under client load.",
        subcommands: [Pipeline.self, ReplaySpeed.self, Bus.self, Load.self, Floor.self, Signal.self, Vibration.self]
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
        abstract: "Replay end to end (chip model, pipeline, NDJSON of every frame and event) to /dev/null, against real time.")

    @Option(help: "Minutes of motion to replay.")
    var minutes = 10.0

    @Option(help: "Output data rate, Hz.")
    var rate = 400

    @Option(help: "Runs; the median is reported.")
    var runs = 3

    @Flag(help: "Encode and write events only: separates the model and pipeline from the NDJSON cost.")
    var noFrames = false

    func run() throws {
        let demo = MotionScript.demo()
        let rounds = Int((minutes * 60 / demo.duration).rounded(.up))
        let motion = MotionScript(name: "demo x\(rounds)", segments: Array(repeating: demo.segments, count: rounds).flatMap { $0 }, loops: false)
        var configuration = Configuration()
        configuration.device.rate = rate
        let devNull = open("/dev/null", O_WRONLY)
        var speeds: [Double] = []
        var lines = 0
        for _ in 0..<runs {
            let writer = LineWriter(fd: devNull)
            let start = now()
            let summary = try Replay(motion: motion, configuration: configuration).run(writingTo: writer, frames: !noFrames)
            writer.flush()
            let elapsed = now() - start
            speeds.append(motion.duration / elapsed)
            lines = summary.samples + summary.events.values.reduce(0, +)
        }
        print("replay: \(fixed(median(speeds), 0))x real time at \(rate) Hz (median of \(runs) runs; \(fixed(motion.duration / 60, 1)) min of motion, \(lines) NDJSON lines a run); target 2000x")
    }
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
