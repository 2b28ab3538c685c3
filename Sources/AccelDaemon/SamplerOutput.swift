// SPDX-License-Identifier: Apache-2.0
import AccelMotion
import AccelParts
import AccelProtocol

/// What the sampler hands on: frames with the events they completed, and
/// changes in the device's health.
public enum SamplerOutput: Sendable {
    case frame(Frame, [MotionEvent])
    /// Several frames from one FIFO read, oldest first: one hand-off and
    /// one write per client for all of them.
    case batch([Delivery])
    case device(DeviceEvent)
    /// The configuration on the chip changed with nothing for a client to
    /// hear of (the FIFO watermark following the clients' latency): the
    /// device's description takes it.
    case configuration(DeviceConfiguration)
}

/// A frame and the events it completed.
public struct Delivery: Sendable {
    public let frame: Frame
    public let events: [MotionEvent]

    public init(frame: Frame, events: [MotionEvent]) {
        self.frame = frame
        self.events = events
    }
}

/// A change in the device's health, for clients' `device` messages.
public struct DeviceEvent: Sendable, Equatable {
    public enum State: String, Sendable {
        /// Transfers fail; sampling is suspended and retried with back-off.
        case lost
        /// Transfers work again.
        case back
        /// The chip had lost its configuration (power glitch) and was set up again.
        case reconfigured
        /// The chip answers but produces no data.
        case stalled
        /// A client changed the range or rate.
        case configured
        /// A different part answers at the address (WHO_AM_I changed):
        /// nothing is served until the right part is back.
        case wrongPart = "wrong-part"
        /// The data-ready bit says "new" faster than the ODR allows (stuck
        /// at 1): reads are paced by the timer at the ODR instead.
        case dataReadyStuck = "data-ready-stuck"
        /// The data-ready bit clears again: back to the phase lock.
        case dataReadyBack = "data-ready-back"
        /// The INT line failed or went away ([device] interrupt): the
        /// timer paces the reads meanwhile, or, without
        /// interrupt-fallback = timer, nothing is read until it is back.
        case interruptLost = "interrupt-lost"
        /// The INT line paces the reads again.
        case interruptBack = "interrupt-back"
        /// [power] wake-on-motion: the board was still and no client
        /// watches frames; the chip's wake-up unit watches, nothing is read.
        case asleep
        /// Reads at the configured rate again: the chip saw motion, or a
        /// client watches frames.
        case awake
        /// --simulate TRACE: the trace ended (the model holds its last
        /// row, or with --loop plays it again). Says nothing of health.
        case traceEnd = "trace-end"
    }
    public let state: State
    public let message: String
    /// An `awake` that the chip's wake-up unit caused: the first motion
    /// event after it says so (`"wake":"chip"`).
    public var byChip = false
    /// With `configured`, `reconfigured` and `back`: what the chip now
    /// runs, and which part where, so that the device's description follows
    /// the sampler, its one owner (a part first found after a late start,
    /// an automatic rate, a watermark included).
    public var configuration: DeviceConfiguration?
    public var chip: String?
    public var location: String?

    public init(state: State, message: String, byChip: Bool = false, configuration: DeviceConfiguration? = nil) {
        self.state = state
        self.message = message
        self.byChip = byChip
        self.configuration = configuration
    }
}
