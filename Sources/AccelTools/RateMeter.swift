// SPDX-License-Identifier: Apache-2.0
import AccelCore
import AccelDriver

/// `accelctl rate`: the chip's real output data rate, from polling STATUS
/// much faster than the ODR; its noise at rest; the cost of one burst.
public struct RateReport: Sendable {
    public let nominal: Int
    public let measured: Double
    public let samples: Int
    public let overruns: Int
    /// RMS per axis around the mean, in mg.
    public let noise: Vector3
    /// Median time of one 7-byte burst, in µs.
    public let burstMicroseconds: Double

    public var deviation: Double { (measured - Double(nominal)) / Double(nominal) }
    /// The datasheet allows ±10 %.
    public var withinTolerance: Bool { abs(deviation) <= 0.10 }
    /// At most one read in 20 found samples overwritten: the polls came
    /// in time, so the intervals say the period.
    public var isReliable: Bool { overruns * 20 <= samples }
}

public enum RateMeter {
    /// Polls every `pollMicroseconds` for `seconds` on `time`.
    public static func measure(_ driver: Accelerometer, time: TimeSource, seconds: Double,
                               pollMicroseconds: UInt64 = 200, progress: (Double) -> Void = { _ in }) throws -> RateReport {
        var seen: [Observation] = []
        var values: [Vector3] = []
        var bursts: [UInt64] = []
        var overruns = 0
        let start = time.nanoseconds
        let end = start + UInt64(seconds * 1e9)
        _ = try driver.read()  // start from a clean STATUS
        var lastReport = start
        while time.nanoseconds < end {
            let before = MonotonicTime.now()
            let reading = try driver.read()
            bursts.append(MonotonicTime.now() - before)
            if reading.status.contains(.dataReady) {
                let overrun = reading.status.contains(.overrun)
                seen.append(Observation(instant: time.nanoseconds, overrun: overrun))
                values.append(driver.acceleration(reading.counts))
                if overrun { overruns += 1 }
            }
            if time.nanoseconds - lastReport > 100_000_000 {
                lastReport = time.nanoseconds
                progress(Double(time.nanoseconds - start) / Double(end - start))
            }
            time.sleep(nanoseconds: pollMicroseconds * 1000)
        }
        progress(1)
        let measured = rate(of: seen)
        let mean = values.reduce(Vector3.zero, +) / Double(max(values.count, 1))
        var sq = Vector3.zero
        for v in values { let d = v - mean; sq += d.scaled(by: d) }
        let noise = Vector3(sq.x.squareRoot(), sq.y.squareRoot(), sq.z.squareRoot()) / Double(max(values.count, 1)).squareRoot() * 1000
        bursts.sort()
        return RateReport(nominal: driver.configuration?.rate ?? 100, measured: measured, samples: values.count,
                          overruns: overruns, noise: noise, burstMicroseconds: Double(bursts[bursts.count / 2]) / 1000)
    }

    /// A read that found new data: when, and whether STATUS said older
    /// samples had been overwritten since the last such read.
    struct Observation {
        let instant: UInt64
        let overrun: Bool
    }

    /// Samples per second from the reads that found new data. Without the
    /// overrun bit exactly one sample came since the last such read, however
    /// late or early the poll. With it, the poll came late and missed some:
    /// at least two came, and the interval over the period says how many.
    /// Rounded down, not to nearest: the late read finds a sample of any
    /// age up to a period, so its interval runs long by up to a period,
    /// while the read before, in time, was prompt (a tenth of a period of
    /// slack for it having been a little late too). (Rounding every interval
    /// to nearest read a loaded machine's 400 Hz as 410.) The period starts
    /// as the median one-sample interval, which the poll's own step
    /// quantises, and the count refines it.
    static func rate(of seen: [Observation]) -> Double {
        guard seen.count > 2 else { return 0 }
        let intervals = zip(seen.dropFirst(), seen).map { (length: Double($0.instant - $1.instant), overrun: $0.overrun) }
        let single = intervals.filter { !$0.overrun }.map(\.length).sorted()
        guard !single.isEmpty else { return 0 }
        var period = single[single.count / 2]
        let span = Double(seen.last!.instant - seen.first!.instant)
        var samples = 0.0
        for _ in 0..<4 {
            guard period > 0 else { return 0 }
            samples = intervals.reduce(0) { $0 + ($1.overrun ? max(2, ($1.length / period + 0.1).rounded(.down)) : 1) }
            period = span / samples
        }
        return samples / (span / 1e9)
    }
}
