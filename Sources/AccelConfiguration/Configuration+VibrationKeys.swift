// SPDX-License-Identifier: Apache-2.0
import AccelCore
import AccelMachine

extension Configuration {
    /// `[vibration]`: the machine acceld's vibration analysis watches
    /// (docs/VIBRATION.md). Clients choose their own windows; these say what
    /// the machine is, so every client's figures name the same orders, zone
    /// and state.
    static var vibrationKeys: [ConfigKey] {
        [
            ConfigKey(section: "vibration", name: "machine-class", help: "ISO 10816-1 class or ISO 20816-3 group whose zones judge the velocity; none: no zone", set: { config, text in
                guard text != "none" else { config.vibration.machineClass = nil; return nil }
                guard let named = MachineClass.named(text) else {
                    return "'\(text)' is not a machine class: use none, " + MachineClass.all.map(\.name).joined(separator: ", ")
                }
                config.vibration.machineClass = named
                return nil
            }, get: { $0.vibration.machineClass?.name ?? "none" }),
            ConfigKey(section: "vibration", name: "shaft", help: "the shaft's frequency: HZ, auto LOW-HIGH (followed in that range by its harmonics) or none", set: { config, text in
                do { config.vibration.shaft = try Self.shaft(parsing: text) } catch { return "\(error)" }
                return nil
            }, get: { config in
                switch config.vibration.shaft {
                case nil: "none"
                case .fixed(let hertz): String(hertz)
                case .estimated(let range): "auto \(range.lowerBound)-\(range.upperBound)"
                }
            }),
            ConfigKey(section: "vibration", name: "bearing", help: "the bearing's defect orders: factors BPFO BPFI BSF FTF, geometry ELEMENTS ROLLER PITCH [ANGLE], or none", set: { config, text in
                do { config.vibration.bearing = try Self.bearing(parsing: text) } catch { return "\(error)" }
                return nil
            }, get: { config in
                config.vibration.bearing.map { "factors \($0.bpfo) \($0.bpfi) \($0.bsf) \($0.ftf)" } ?? "none"
            }),
            .integer("vibration", "harmonics", \.vibration.harmonics, within: 1...10, "harmonics of each order read"),
            .number("vibration", "order-tolerance", \.vibration.tolerance, 0.001...0.2, unit: "of the frequency", "how far a line may sit from an order"),
            .integer("vibration", "peaks", \.vibration.peaks, within: 1...50, "strongest lines reported per window"),
            .number("vibration", "average", \.vibration.average, 0.05...3600, unit: "s", "span the envelope spectra are averaged over before the orders' families are read"),
            .number("vibration", "order-bins", \.vibration.orderBins, 0.5...20, unit: "bins", "how far a family's line may sit from its order, in the averaged envelope spectrum"),
            .number("vibration", "defect-watch", \.vibration.condition.watch, 0...100, unit: "dB", "a bearing order's indicator from which its condition is watch"),
            .number("vibration", "defect-alarm", \.vibration.condition.alarm, 0...100, unit: "dB", "a bearing order's indicator from which its condition is alarm"),
            .number("vibration", "defect-hysteresis", \.vibration.condition.hysteresis, 0...50, unit: "dB", "how far below its threshold a condition is left"),
            .integer("vibration", "defect-hold", \.vibration.condition.hold, within: 1...100, "consecutive windows a new condition must hold"),
            ConfigKey(section: "vibration", name: "envelope-band", help: "the envelope's band-pass, LOW-HIGH Hz; auto: the kurtogram's, the most impulsive band", set: { config, text in
                guard text != "auto" else { config.vibration.envelopeBand = nil; return nil }
                do { config.vibration.envelopeBand = try Self.band(parsing: text) } catch { return "\(error)" }
                return nil
            }, get: { $0.vibration.envelopeBand.map { "\($0.lowerBound)-\($0.upperBound)" } ?? "auto" }),
            ConfigKey(section: "vibration", name: "velocity-band", help: "the velocity RMS's band, LOW-HIGH Hz (ISO 10816 / 20816: 10-1000)", set: { config, text in
                do { config.vibration.velocityBand = try Self.band(parsing: text) } catch { return "\(error)" }
                return nil
            }, get: { "\($0.vibration.velocityBand.lowerBound)-\($0.vibration.velocityBand.upperBound)" }),
            ConfigKey(section: "vibration", name: "idle-threshold", help: "vector RMS (g) above which the machine is at least idle; learn: learned from the machine at rest when acceld starts", set: { config, text in
                guard text != "learn" else { config.vibration.state.learnAtStart = true; return nil }
                config.vibration.state.learnAtStart = false
                return ConfigKey.number("vibration", "idle-threshold", \.vibration.state.idle, 0.0001...10, unit: "g", "").set(&config, text)
            }, get: { $0.vibration.state.learnAtStart ? "learn" : String($0.vibration.state.idle) }),
            .number("vibration", "running-threshold", \.vibration.state.running, 0.0001...10, unit: "g", "vector RMS above which it runs"),
            .number("vibration", "state-hysteresis", \.vibration.state.hysteresis, 0...0.9, unit: "of the threshold", "how far below its threshold a state is left"),
            .integer("vibration", "state-hold", \.vibration.state.hold, within: 1...100, "half-seconds a new state must hold"),
        ]
    }

    /// Why a `[vibration]` value cannot be read, and what to write.
    public struct VibrationValueError: Error, CustomStringConvertible {
        public let description: String
    }

    /// `[vibration] shaft`'s value (accelctl's --shaft reads the same).
    public static func shaft(parsing text: String) throws(VibrationValueError) -> ShaftSpeed? {
        if text == "none" { return nil }
        if text.hasPrefix("auto") {
            let range = text.dropFirst(4).trimmingWhitespace()
            return .estimated(try band(parsing: String(range), what: "auto's range"))
        }
        guard let hertz = Double(text), hertz.isFinite, hertz > 0 else {
            throw VibrationValueError(description: "'\(text)' is not a shaft frequency: write HZ (29.95), auto LOW-HIGH (auto 10-60) or none")
        }
        return .fixed(hertz)
    }

    /// `[vibration] bearing`'s value (accelctl's --bearing reads the same).
    public static func bearing(parsing text: String) throws(VibrationValueError) -> BearingFactors? {
        if text == "none" { return nil }
        let words = text.split(whereSeparator: { $0 == " " || $0 == "," || $0 == "\t" })
        let numbers = words.dropFirst().compactMap { Double($0) }.filter { $0.isFinite && $0 >= 0 }
        switch words.first {
        case "factors" where numbers.count == 4 && words.count == 5 && numbers.allSatisfy({ $0 > 0 }):
            return BearingFactors(bpfo: numbers[0], bpfi: numbers[1], bsf: numbers[2], ftf: numbers[3])
        case "geometry" where (3...4).contains(words.count - 1) && numbers.count == words.count - 1:
            guard let elements = Int(words[1]), elements >= 3, numbers[1] > 0, numbers[1] < numbers[2], numbers.count == 3 || numbers[3] < 90 else {
                throw VibrationValueError(description: "'\(text)' is not a bearing's geometry: ELEMENTS is a whole number of at least 3, the roller's diameter is smaller than the pitch circle's, and the contact angle is below 90 degrees")
            }
            return BearingFactors(elements: elements, rollerDiameter: numbers[1], pitchDiameter: numbers[2], contactAngle: words.count == 5 ? numbers[3] : 0)
        default:
            throw VibrationValueError(description: "'\(text)' is not a bearing: write factors BPFO BPFI BSF FTF (its datasheet's orders, such as factors 3.585 5.415 2.357 0.398), geometry ELEMENTS ROLLER PITCH [ANGLE] (diameters in one unit, angle in degrees, such as geometry 9 7.94 39.04 0), or none")
        }
    }

    /// A band, LOW-HIGH in Hz (accelctl's --band reads the same).
    public static func band(parsing text: String, what: String = "a band") throws(VibrationValueError) -> ClosedRange<Double> {
        let ends = text.split(separator: "-", omittingEmptySubsequences: false).map { Double($0.trimmingWhitespace()) }
        guard ends.count == 2, let low = ends[0], let high = ends[1], low > 0, low < high, high.isFinite else {
            throw VibrationValueError(description: "'\(text)' is not \(what): write LOW-HIGH in Hz, low above 0 and below high, such as 500-3000")
        }
        return low...high
    }
}
