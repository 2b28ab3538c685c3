// SPDX-License-Identifier: Apache-2.0
import AccelCore
/// Failures that are about the chip, not the bus.
public enum DriverError: Error, Equatable, CustomStringConvertible, Sendable {
    case unknownChip(location: String, whoAmI: UInt8, suggestion: String?)
    /// Several parts answer with this WHO_AM_I at different scales: only
    /// the person who bought the board knows which it is.
    case ambiguousPart(location: String, whoAmI: UInt8, candidates: [String])
    /// The part named in the configuration answers with another WHO_AM_I.
    case wrongPart(location: String, part: String, expected: UInt8, found: UInt8)
    case unknownPart(String)
    case unsupportedRange(Int, part: String, available: [Int])
    case unsupportedRate(Int, part: String, mode: String, available: [Int])
    case unsupportedMode(String, part: String, available: [String])
    case configurationMismatch(location: String, register: UInt8, wrote: UInt8, readBack: UInt8)
    case bootDidNotFinish(location: String, milliseconds: Int)
    case noData(location: String, waitedMilliseconds: Int)
    /// The part has no self-test, or publishes no limits for one.
    case noSelfTest(part: String)
    /// A trace without rotation rates asked of a part with a gyroscope.
    case traceWithoutRotation(trace: String, part: String)
    /// The part cannot put `signal` on `pin` (the LIS3DH's INT2 has no data ready).
    case interruptNotRoutable(part: String, pin: String, signal: String, alternatives: [String])
    /// [power] wake-on-motion on a part whose wake-up unit is not in the table.
    case noWakeUpUnit(part: String)
    /// The bus's clock cannot carry the part's samples at the rate, even
    /// batched as far as its FIFO allows (BusBudget).
    case busTooSlow(location: String, part: String, rate: Int, bitsPerSecond: Int, clock: Int, needed: Int?, fastestRate: Int?)
    /// kHz rates on a part without a FIFO: every sample would have to be
    /// read before the next.
    case noFIFOForRate(part: String, rate: Int, slowerRates: [Int])

    public var description: String {
        switch self {
        case .unknownChip(let location, let id, let suggestion):
            var text = "the chip at \(location) answered WHO_AM_I \(hex(id)), which is not a part this acceld drives (it drives \(ChipProfile.summary))"
            if let suggestion { text += "; \(hex(id)) suggests \(suggestion)" }
            if id == 0x00 || id == 0xFF { text += "; \(hex(id)) usually means a floating or shorted bus line, not a chip" }
            return text
        case .ambiguousPart(let location, let id, let candidates):
            return "the chip at \(location) answered WHO_AM_I \(hex(id)), which \(candidates.joined(separator: ", ")) all answer with, at different scales; acceld will not guess: name the part printed on the chip or its board with --part NAME, or 'part = NAME' in [device] of the configuration (one of \(candidates.joined(separator: ", ")))"
        case .wrongPart(let location, let part, let expected, let found):
            return "the chip at \(location) answered WHO_AM_I \(hex(found)), but the configured part \(part) answers \(hex(expected)): check the 'part' setting against the chip, or the address (another device may answer there)"
                + (ChipProfile.candidates(whoAmI: found).isEmpty ? "" : "; \(hex(found)) is " + ChipProfile.candidates(whoAmI: found).map(\.name).joined(separator: " or "))
        case .unknownPart(let name):
            return "'\(name)' is not a part this acceld drives: choose one of its table's (\(ChipProfile.partList))"
        case .unsupportedRange(let value, let part, let available):
            return "range ±\(value) g is not available on the \(part): choose one of " + available.map { "±\($0) g" }.joined(separator: ", ")
        case .unsupportedRate(let value, let part, let mode, let available):
            return "rate \(value) Hz is not available on the \(part) in \(mode) mode: choose one of " + available.map { "\($0) Hz" }.joined(separator: ", ")
        case .unsupportedMode(let value, let part, let available):
            return "mode '\(value)' is not a mode of the \(part): choose one of " + available.joined(separator: ", ")
        case .configurationMismatch(let location, let register, let wrote, let readBack):
            return "the chip at \(location) did not keep its configuration: register \(hex(register)) was written \(hex(wrote)) but reads back \(hex(readBack)); another program may be writing to it, or the chip is not what WHO_AM_I claims"
        case .bootDidNotFinish(let location, let ms):
            return "the chip at \(location) did not finish BOOT within \(ms) ms; power-cycle the board"
        case .noData(let location, let ms):
            return "the chip at \(location) produced no new sample in \(ms) ms although it is powered up; it may be stuck: power-cycle it"
        case .noSelfTest(let part):
            return "the \(part) has no self-test with published limits (docs/DRIVER.md): check it with 'accelctl calibrate' and the six orientations instead"
        case .traceWithoutRotation(let trace, let part):
            return "\(trace) has no rotation rates (its header is t,x,y,z): the \(part)'s gyroscope would read a board that never turns, and the attitude would trust it. Play it on a 3-axis part (--part LIS3DH), use a trace recorded with rates (t,x,y,z,wx,wy,wz), or, if the board was still (a machine on its mount), say so with --still-gyroscope"
        case .interruptNotRoutable(let part, let pin, let signal, let alternatives):
            let fix = alternatives.isEmpty ? "this part cannot tell of new samples on a pin: leave 'interrupt' unset and the timer paces the reads"
                : "wire \(alternatives.joined(separator: " or ")) to the GPIO line and set interrupt-pin = \(alternatives[0].lowercased())"
            return "the \(part) cannot put \(signal) on its \(pin) pin: \(fix)"
        case .noWakeUpUnit(let part):
            return "the \(part)'s wake-up unit is not in acceld's table of parts (docs/DRIVER.md): set wake-on-motion = off"
        case .busTooSlow(let location, let part, let rate, let bits, let clock, let needed, let fastest):
            var text = "the \(part) at \(rate) Hz needs \(bits / 1_000) kbit/s of the bus, more than \(Int(BusBudget.usableShare * 100)) % of \(location)'s \(clockText(clock)) clock carries, so samples would be lost: "
            if let needed {
                text += "raise the bus's clock to \(clockText(needed)) (on a Raspberry Pi: dtparam=i2c_arm_baudrate=\(needed) in /boot/firmware/config.txt, then reboot\(needed > 400_000 ? "; above 400 kHz the part and the wiring must support Fast-mode Plus" : ""))"
            } else {
                text += "no I2C clock carries it (wire the part by SPI)"
            }
            if let fastest { text += ", or lower the rate to \(fastest) Hz or less" }
            return text + " (docs/INSTALL.md, \"The bus's clock\")"
        case .noFIFOForRate(let part, let rate, let slower):
            return "\(rate) Hz on the \(part), which has no FIFO, needs every sample read within \(fixed(1_000 / Double(rate), 2)) ms, which Linux does not promise: "
                + ChipProfile.partsForKilohertz + "; or choose one of " + slower.map(String.init).joined(separator: ", ")
        }
    }

    public var exitCode: Int32 {
        switch self {
        case .unknownChip, .wrongPart: 65             // EX_DATAERR: not the chip expected
        case .ambiguousPart, .interruptNotRoutable, .noWakeUpUnit, .busTooSlow, .noFIFOForRate: 78  // EX_CONFIG: the configuration must change
        case .unknownPart, .unsupportedRange, .unsupportedRate, .unsupportedMode, .noSelfTest, .traceWithoutRotation: 64  // EX_USAGE
        case .configurationMismatch, .bootDidNotFinish, .noData: 74  // EX_IOERR
        }
    }
}
