// SPDX-License-Identifier: Apache-2.0
import AccelCore
import AccelParts

/// The [device] section: where the chip is and how to run it.
public struct DeviceSettings: Sendable, Equatable {
    /// How acceld reaches the chip: its registers on i2c-dev, or the
    /// kernel's driver through IIO.
    public enum Backend: String, Sendable, CaseIterable { case i2c, iio }
    public var backend = Backend.i2c
    /// With the IIO backend: `iio:deviceN` or the driver's name for the
    /// chip; nil takes the only IIO accelerometer there is.
    public var iioDevice: String?
    public var bus = 1
    public var address: UInt8 = 0x1C
    /// The part on the board; nil identifies it by WHO_AM_I, which works
    /// only where one part answers with that value.
    public var part: String?
    /// Full scale in g; nil is the part's smallest.
    public var range: Int?
    /// Output data rate in Hz; nil (`auto`) is the part's rate nearest
    /// 100 Hz (`ChipProfile.automaticRate`), 100 while the part is unknown.
    public var rate: Int?
    /// A mode of the part's; nil is the part's first.
    public var mode: String?
    public var mountMatrix = MountMatrix.identity
    /// Where the chip's INT pin is wired (`GPIOLineSpec`: CHIP:LINE or a
    /// line name; `model` with --simulate); nil: the timer paces the reads.
    public var interrupt: String?
    public var interruptPin = ChipProfile.InterruptPin.int1
    /// interrupt-fallback = timer: go on with the timer when the line is
    /// silent at start or lost later.
    public var interruptFallback = false
    public init() {}

    /// The named part's profile, if one is named.
    public var profile: ChipProfile? { part.flatMap(ChipProfile.named) }

    /// Range, rate and mode to configure, with the part's defaults filled in.
    public var configuration: DeviceConfiguration {
        DeviceConfiguration(range: range ?? profile?.ranges[0].fullScale ?? 2,
                            rate: rate ?? profile?.automaticRate(mode: mode) ?? ChipProfile.preferredRate, mode: mode,
                            interruptPin: interrupt == nil ? nil : interruptPin)
    }

    /// How the rate was chosen, for the logs.
    public var rateOrigin: String { rate == nil ? "auto: the part's rate nearest \(ChipProfile.preferredRate) Hz" : "configured" }

    /// `interrupt = model`: with --simulate, the chip model's own pin.
    public static let modelLine = "model"

    /// Which setting the named part cannot run, and why; nil when it can.
    public func problem(on profile: ChipProfile) -> (key: String, reason: String)? {
        let wanted = configuration
        guard let mode = profile.mode(named: wanted.mode) else {
            return ("mode", "'\(wanted.mode ?? "")' is not a mode of the \(profile.name): choose one of " + profile.modes.map(\.name).joined(separator: ", "))
        }
        if profile.range(fullScale: wanted.range) == nil {
            return ("range", "±\(wanted.range) g is not available on the \(profile.name): choose one of " + profile.ranges.map { String($0.fullScale) }.joined(separator: ", "))
        }
        let kilohertzWithoutFIFO = wanted.rate >= ChipProfile.kilohertz && profile.fifo == nil
        if !mode.rates.contains(where: { $0.hertz == wanted.rate }) {
            return ("rate", "\(wanted.rate) Hz is not available on the \(profile.name) in \(mode.name) mode: choose one of " + mode.rates.map { String($0.hertz) }.joined(separator: ", ")
                + (kilohertzWithoutFIFO ? " (\(ChipProfile.partsForKilohertz))" : ""))
        }
        // The sampler refuses it too, for a part found by WHO_AM_I; said
        // here at the file's line. The kernel's driver (backend = iio)
        // paces its own reads.
        if kilohertzWithoutFIFO, backend == .i2c {
            return ("rate", "\(DriverError.noFIFOForRate(part: profile.name, rate: wanted.rate, slowerRates: mode.rates.map(\.hertz).filter { $0 < ChipProfile.kilohertz }))")
        }
        if interrupt != nil, profile.interruptPins?.signals(on: interruptPin).contains(.dataReady) != true {
            let error = DriverError.interruptNotRoutable(part: profile.name, pin: interruptPin.label, signal: "data-ready",
                                                         alternatives: ChipProfile.InterruptPin.allCases.filter { profile.interruptPins?.signals(on: $0).contains(.dataReady) == true }.map(\.label))
            return ("interrupt-pin", "\(error)")
        }
        return nil
    }
}
