// SPDX-License-Identifier: Apache-2.0
import AccelCore
import AccelParts
import Dispatch

/// The chip model's INT pin as a GPIO line: the model records each rise
/// at the sample instant it happened, whether or not anyone was waiting,
/// as the kernel stamps and queues a real line's edges, and `wait` hands
/// over the rises it has not reported yet. On a virtual clock `wait` moves
/// the clock on; on the real one it sleeps until the next sample instant
/// (the only moment the pin can rise), or until `wake`. (Unchecked: only
/// the waiting thread uses it, and the model only on `owner`; `wake`
/// signals a semaphore.)
public final class SimulatedInterruptLine: InterruptLine, @unchecked Sendable {
    public let description: String
    private let model: ChipModel
    private let pin: ChipProfile.InterruptPin
    private let time: TimeSource
    private let woken = DispatchSemaphore(value: 0)
    /// Confined to the thread that waits: the rises reported so far.
    private var reported: UInt64

    /// Where the model may be touched (the sampler's queue, in the daemon);
    /// nil where one thread does everything (tests on a virtual clock).
    private let owner: DispatchQueue?

    public init(model: ChipModel, pin: ChipProfile.InterruptPin, time: TimeSource, owner: DispatchQueue? = nil) {
        self.model = model
        self.pin = pin
        self.time = time
        self.owner = owner
        owner?.setSpecific(key: Self.ownerKey, value: ObjectIdentifier(owner!))
        description = "the chip model's \(pin.label)"
        // Like a line just requested: only rises from now on are edges.
        reported = 0
        reported = onOwner {
            model.watch(pin)
            return model.rises(of: pin).count
        }
    }

    private func levelNow() -> Bool { onOwner { model.level(of: pin) } }

    private func nextSample() -> UInt64? {
        let now = time.nanoseconds
        return onOwner { model.sampleInstant(after: now) }
    }

    /// `work` on the owner's queue: at once when already there (the
    /// sampler's step asks for the level), else through it.
    private func onOwner<T>(_ work: () -> T) -> T {
        guard let owner, DispatchQueue.getSpecific(key: Self.ownerKey) != ObjectIdentifier(owner) else { return work() }
        return owner.sync(execute: work)
    }

    private static let ownerKey = DispatchSpecificKey<ObjectIdentifier>()

    public func wait(nanoseconds: UInt64) throws -> [Edge] {
        let deadline = time.nanoseconds + nanoseconds
        while true {
            let rises = onOwner { model.rises(of: pin) }
            if rises.count > reported {
                // The ones the model still keeps, numbered as they came.
                let fresh = Int(min(rises.count - reported, UInt64(rises.recent.count)))
                let edges = rises.recent.suffix(fresh).enumerated().map { index, instant in
                    Edge(instant: instant, sequence: UInt32(truncatingIfNeeded: rises.count - UInt64(fresh - 1 - index)))
                }
                reported = rises.count
                return edges
            }
            let now = time.nanoseconds
            guard now < deadline else { return [] }
            let next = min(nextSample() ?? deadline, deadline)
            guard sleep(until: next) else { return [] }
        }
    }

    public func wake() { woken.signal() }

    public func level() throws -> Bool { levelNow() }

    /// Sleeps until `instant`; false when woken first.
    private func sleep(until instant: UInt64) -> Bool {
        let now = time.nanoseconds
        guard instant > now else { return true }
        if let virtual = time as? VirtualTime {
            virtual.set(nanoseconds: instant)
            return true
        }
        return woken.wait(timeout: .now() + .nanoseconds(Int(instant - now))) == .timedOut
    }
}
