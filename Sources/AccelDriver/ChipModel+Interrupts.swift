// SPDX-License-Identifier: Apache-2.0
import AccelCore

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
        }
    }
}
