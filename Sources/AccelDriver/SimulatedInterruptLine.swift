// SPDX-License-Identifier: Apache-2.0
import AccelCore
import Dispatch

/// The chip model's INT pin as a GPIO line: it looks at the pin at each of
/// the chip's sample instants (the only moments it can rise) and reports
/// a rise as an edge stamped with that instant, as the kernel stamps a
/// real edge. On a virtual clock `wait` moves the clock on; on the real
/// one it sleeps until the instant, or until `wake`. (Unchecked: only the
/// waiting thread uses it, and the model only on `owner`; `wake` signals
/// a semaphore.)
public final class SimulatedInterruptLine: InterruptLine, @unchecked Sendable {
    public let description: String
    private let model: ChipModel
    private let pin: ChipProfile.InterruptPin
    private let time: TimeSource
    private let woken = DispatchSemaphore(value: 0)
    /// Confined to the thread that waits: the level last seen and the
    /// edges counted.
    private var wasHigh = false
    private var sequence: UInt32 = 0

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
        // The level now (a read may have lowered it since the last look).
        wasHigh = levelNow()
        while true {
            let sample = nextSample()
            let next = min(sample ?? deadline, deadline)
            guard sleep(until: next) else { return [] }
            let high = levelNow()
            defer { wasHigh = high }
            if high && !wasHigh, let sample, sample <= next {
                sequence &+= 1
                return [Edge(instant: sample, sequence: sequence)]
            }
            if next >= deadline { return [] }
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
