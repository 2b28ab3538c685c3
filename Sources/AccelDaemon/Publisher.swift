// SPDX-License-Identifier: Apache-2.0
import AccelCore
import AccelDriver
import AccelMotion
import AccelProtocol

/// Where every source's readings end, whatever paced them (the timer's
/// phase lock, a FIFO watermark, the kernel's IIO trigger): it numbers
/// samples, counts them, runs them through the motion pipeline, feeds a
/// flat calibration that is collecting, holds frames for clients that
/// allow latency, and hands the result on. A source decides which sample
/// a reading is and when it was made; the rest is here, once.
///
/// Owned by one source and used only on that source's thread.
struct Publisher {
    /// The next sample's number: the chip's output periods since start,
    /// so that a gap of n is n samples that never reached a client.
    var seq: UInt64 = 0
    var counters = SamplerCounters()
    var pipeline: MotionPipeline
    var output: (SamplerOutput) -> Void = { _ in }
    /// A flat calibration's collector: it gets each sample in chip axes
    /// (uncalibrated g) until it returns true.
    var collector: ((Vector3) -> Bool)?
    /// Frames held back for clients that all allow latency (see `send`).
    private var held: [Delivery] = []

    init(settings: MotionSettings) {
        pipeline = MotionPipeline(settings: settings)
    }

    /// The instant of the oldest frame held back, in seconds.
    var oldestHeld: Double? { held.first?.frame.t }

    /// Turns the sample `missing` periods after the previous one, made at
    /// `instant` (ns), into a frame and the events it completed.
    /// `chip` is evaluated only while a calibration collects.
    mutating func deliver(_ counts: Counts, chip: @autoclosure () -> Vector3, g: Vector3, rotation: Vector3?,
                          at instant: Double, after missing: UInt64 = 0) -> Delivery {
        counters.lost += Int(missing)
        seq += missing
        if let collector, collector(chip()) { self.collector = nil }
        var events: [MotionEvent] = []
        let frame = pipeline.process(Sample(seq: seq, t: instant / 1e9, counts: counts, g: g, rotationRate: rotation),
                                     events: &events)
        seq += 1
        counters.published += 1
        return Delivery(frame: frame, events: events)
    }

    /// Every output goes through here, to the hub, which writes it to each
    /// client at once: a system call per client per frame. With a
    /// `holdLimit` (every watching client allows that many ns of latency
    /// and no FIFO batches already), frames are held and handed over
    /// together, as the FIFO would, with one write per client for all.
    mutating func send(_ output: SamplerOutput, holdLimit: Double? = nil) {
        if case .frame(let frame, let events) = output, holdLimit != nil, held.count < 256 {
            held.append(Delivery(frame: frame, events: events))
            return
        }
        release()
        self.output(output)
    }

    /// Frames read together: one as a frame, more as a batch.
    mutating func send(_ deliveries: [Delivery]) {
        guard let first = deliveries.first else { return }
        send(deliveries.count == 1 ? .frame(first.frame, first.events) : .batch(deliveries))
    }

    /// Hands on the frames held back, if any.
    mutating func release() {
        guard !held.isEmpty else { return }
        output(.batch(held))
        held = []
    }
}
