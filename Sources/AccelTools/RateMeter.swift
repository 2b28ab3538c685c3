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
        var instants: [UInt64] = []
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
                instants.append(time.nanoseconds)
                values.append(driver.acceleration(reading.counts))
                if reading.status.contains(.overrun) { overruns += 1 }
            }
            if time.nanoseconds - lastReport > 100_000_000 {
                lastReport = time.nanoseconds
                progress(Double(time.nanoseconds - start) / Double(end - start))
            }
            time.sleep(nanoseconds: pollMicroseconds * 1000)
        }
        progress(1)
        let measured = rate(of: instants)
        let mean = values.reduce(Vector3.zero, +) / Double(max(values.count, 1))
        var sq = Vector3.zero
        for v in values { let d = v - mean; sq += d.scaled(by: d) }
        let noise = Vector3(sq.x.squareRoot(), sq.y.squareRoot(), sq.z.squareRoot()) / Double(max(values.count, 1)).squareRoot() * 1000
        bursts.sort()
        return RateReport(nominal: driver.configuration?.rate ?? 100, measured: measured, samples: values.count,
                          overruns: overruns, noise: noise, burstMicroseconds: Double(bursts[bursts.count / 2]) / 1000)
    }

    /// Samples per second from the instants new data was seen. A poll that
    /// came late (a busy machine) missed samples the chip overwrote, so the
    /// count alone reads low: the median interval gives the period, each
    /// interval counts as the whole periods it spans, and the rate is those
    /// periods over the time. Good while most polls come in time; when they
    /// do not, `isReliable` says so.
    static func rate(of instants: [UInt64]) -> Double {
        guard instants.count > 2 else { return 0 }
        let intervals = zip(instants.dropFirst(), instants).map { Double($0 - $1) }
        let typical = intervals.sorted()[intervals.count / 2]
        guard typical > 0 else { return 0 }
        let periods = intervals.reduce(0) { $0 + max(1, ($1 / typical).rounded()) }
        return periods / (Double(instants.last! - instants.first!) / 1e9)
    }
}
