// SPDX-License-Identifier: Apache-2.0
import AccelCore
import AccelDriver
import AccelMotion

/// `accelctl watch --direct`: the view reads the chip itself. A part
/// without a FIFO holds one sample, so the view must come back within a
/// period of each: it waits for keys at most half a period at a time
/// (`keyWaitMilliseconds`), and every sample reaches the same motion
/// pipeline acceld runs, so shake and fall figures are the daemon's.
public struct DirectReader {
    private let driver: Accelerometer
    private let time: TimeSource
    private var pipeline: MotionPipeline
    /// Samples read so far.
    public private(set) var count: UInt64 = 0
    private var lastCall: UInt64?

    public init(driver: Accelerometer, time: TimeSource, settings: MotionSettings = MotionSettings()) {
        self.driver = driver
        self.time = time
        pipeline = MotionPipeline(settings: settings, gyroscopeRange: driver.rotationRange ?? .infinity)
    }

    /// The longest wait between two reads that misses no sample.
    public var keyWaitMilliseconds: Int32 { Int32(max(1, driver.outputPeriodNanoseconds / 2_000_000)) }

    /// Reads every sample the chip made since the last call into `state`.
    public mutating func readReady(into state: inout WatchState, clock: EventClock = .wallClock) {
        var events: [MotionEvent] = []
        // No more reads than samples the chip can have made since the last
        // call: a data-ready bit stuck at 1 (i2c-stub's) must not hold the
        // view in this loop for ever.
        let now = time.nanoseconds
        var budget = Int((now - min(lastCall ?? now, now)) / driver.outputPeriodNanoseconds) + 2
        lastCall = now
        while budget > 0, let reading = try? driver.read(), reading.status.contains(.dataReady) {
            budget -= 1
            let sample = Sample(seq: count, t: time.seconds, counts: reading.counts, g: driver.acceleration(reading.counts),
                                rotationRate: reading.rotation.flatMap(driver.rotationRate))
            let frame = pipeline.process(sample, events: &events)
            count += 1
            state.apply(frame, orientation: pipeline.orientation.rawValue)
            state.events += events.map { describe($0, clock: clock) }
            events.removeAll()
        }
    }
}

extension WatchState {
    public mutating func apply(_ frame: Frame, orientation: String) {
        acceleration = frame.acceleration
        gravity = frame.gravity
        user = frame.user
        pitch = frame.attitude.pitch * 180 / .pi
        roll = frame.attitude.roll * 180 / .pi
        // The fused attitude's yaw and the rate, where a gyroscope gave them.
        yaw = frame.quaternion == nil ? nil : frame.attitude.yaw * 180 / .pi
        rotationRate = frame.rotationRate.map { $0 * (180 / .pi) }
        seq = Int(frame.seq)
        self.orientation = orientation
    }
}
