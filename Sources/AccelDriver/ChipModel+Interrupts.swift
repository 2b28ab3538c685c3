// SPDX-License-Identifier: Apache-2.0
import AccelCore
import AccelParts

// The chip model's INT pins: each pin's level follows the signals its
// routing registers send it (ChipProfile.InterruptPins), at the active
// level the chip is set to, as the datasheets describe: data ready stays
// up until the sample is read (latched), the watermark while the FIFO
// holds more than it, the overrun while the FIFO is full.
extension ChipModel {
    /// The level `pin` shows now (true: high), after making every sample
    /// whose instant has passed.
    public func level(of pin: ChipProfile.InterruptPin) -> Bool {
        catchUp()
        return isActive(pin)
    }

    /// The rises a watched pin made, as a GPIO line queues its edges: the
    /// kernel stamps each in its interrupt handler, whether or not anyone
    /// is waiting on the line, and keeps the last 16.
    public struct PinRises: Sendable {
        /// Rises since the pin was first watched: each rise's sequence number.
        public internal(set) var count: UInt64 = 0
        /// The latest rises' instants (ns, the model's clock), oldest first.
        public internal(set) var recent: [UInt64] = []
        static let kept = 16
    }

    /// Starts recording `pin`'s rises (a line opened on it).
    public func watch(_ pin: ChipProfile.InterruptPin) {
        catchUp()
        if pinRises[pin] == nil { pinRises[pin] = PinRises() }
    }

    /// `pin`'s rises so far, after making every sample whose instant has passed.
    public func rises(of pin: ChipProfile.InterruptPin) -> PinRises {
        catchUp()
        return pinRises[pin] ?? PinRises()
    }

    /// Makes the samples up to `index` one at a time while a watched pin is
    /// inactive, to find the sample at which it rises. A pin rises only at
    /// a sample and falls only on a register access, so between two
    /// accesses it rises at most once, and within a FIFO's depth of
    /// samples or never; the rest are made at once by the caller.
    func noteRises(through index: UInt64) {
        guard let start = phaseStart else { return }
        var waiting = pinRises.keys.filter { !isActive($0) }
        var next = max(lastSampleIndex + 1, UInt64(profile.turnOnPeriods))
        let last = min(index, next + UInt64((profile.fifo?.depth ?? 0) + 2))
        while !waiting.isEmpty, next <= last {
            makeSamples(through: next)
            for pin in waiting where isActive(pin) {
                pinRises[pin]!.count += 1
                pinRises[pin]!.recent.append(start + next * periodNanoseconds)
                if pinRises[pin]!.recent.count > PinRises.kept { pinRises[pin]!.recent.removeFirst() }
            }
            waiting.removeAll(where: isActive)
            next += 1
        }
    }

    private func isActive(_ pin: ChipProfile.InterruptPin) -> Bool {
        guard let pins = profile.interruptPins else { return false }
        let asserted = pins.routes.contains { route in
            route.pin == pin && route.settings.allSatisfy { field($0.field) == $0.value } && isRaised(route.signal)
        }
        let activeHigh = field(pins.activeHigh.field) == pins.activeHigh.value
        return asserted == activeHigh
    }

    /// The instant (ns, on the model's clock) of the first sample the chip
    /// makes after `instant`; nil while it is powered down.
    public func sampleInstant(after instant: UInt64) -> UInt64? {
        guard let start = phaseStart else { return nil }
        let period = periodNanoseconds
        let first = start + UInt64(profile.turnOnPeriods) * period
        guard instant >= first else { return first }
        return start + ((instant - start) / period + 1) * period
    }

    private func isRaised(_ signal: ChipProfile.InterruptSignal) -> Bool {
        let status = registers[Int(profile.statusRegister)]
        switch signal {
        case .dataReady:
            return status & profile.statusBits.dataReady != 0
        case .watermark:
            guard let spec = profile.fifo else { return false }
            let threshold = Int(field(spec.watermarkField))
            // The LIS3DH family's WTM: more than FTH samples; the six-axis
            // FIFO_WTM_IA: at least the watermark's words.
            return spec.layout == .outputRegisters ? fifo.count > threshold : threshold > 0 && fifo.count >= threshold
        case .overrun:
            guard let spec = profile.fifo else { return false }
            return fifoOverrunLatched || fifo.count >= spec.depth
        case .wakeUp:
            return wakeUpRaised
        }
    }
}
