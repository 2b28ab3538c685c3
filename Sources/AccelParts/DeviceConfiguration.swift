// SPDX-License-Identifier: Apache-2.0
/// Full scale, output data rate and power mode: what a user chooses; and
/// the FIFO watermark, which the sampler chooses from clients' latency.
public struct DeviceConfiguration: Sendable, Equatable, Codable {
    /// ±g, from the part's table (2 or 8 on the LIS302DL).
    public var range: Int
    /// Hz, from the part's table (100 or 400 on the LIS302DL).
    public var rate: Int
    /// A mode of the part's (LIS3DH: high-resolution, normal, low-power);
    /// nil is the part's first.
    public var mode: String?
    /// Samples the FIFO collects before the sampler wakes; 0 leaves the
    /// FIFO off (and parts without one ignore it).
    public var fifoWatermark: Int
    /// The pin that tells of new samples ([device] interrupt-pin): data
    /// ready, or the FIFO watermark while the FIFO is on. nil: no pin
    /// is routed, and the timer paces the reads.
    public var interruptPin: ChipProfile.InterruptPin?
    /// The chip's wake-up unit armed ([power] wake-on-motion, while the
    /// board is still): the pin carries the wake-up instead of data ready.
    public var wakeUp: WakeUpArming?
    public init(range: Int = 2, rate: Int = 100, mode: String? = nil, fifoWatermark: Int = 0,
                interruptPin: ChipProfile.InterruptPin? = nil, wakeUp: WakeUpArming? = nil) {
        self.range = range
        self.rate = rate
        self.mode = mode
        self.fifoWatermark = fifoWatermark
        self.interruptPin = interruptPin
        self.wakeUp = wakeUp
    }

    /// Motion that wakes the board: over `threshold` g (gravity filtered
    /// out) on any axis for `duration` samples more than one.
    public struct WakeUpArming: Sendable, Equatable, Codable {
        public var threshold: Double
        public var duration: Int
        public init(threshold: Double, duration: Int = 0) {
            self.threshold = threshold
            self.duration = duration
        }
    }

    /// What the interrupt pin carries in this configuration: the watermark
    /// whenever the FIFO is on (at 1, each sample as it comes), since the
    /// output registers' data ready is never cleared while the FIFO is read.
    public var interruptSignal: ChipProfile.InterruptSignal {
        wakeUp != nil ? .wakeUp : fifoWatermark >= 1 ? .watermark : .dataReady
    }
}
