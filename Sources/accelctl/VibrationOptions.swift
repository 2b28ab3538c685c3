// SPDX-License-Identifier: Apache-2.0
import AccelConfiguration
import AccelVibration
import ArgumentParser

/// The vibration analysis's options for a recording (acceld's own come
/// from [vibration] in its configuration, docs/CONFIG.md).
struct VibrationOptions: ParsableArguments {
    @Option(help: "Window length, seconds (at least 3 periods of 10 Hz).")
    var window = 1.0

    @Option(help: "Fraction of a window shared with the next, 0 to 0.9.")
    var overlap = 0.5

    @Option(help: ArgumentHelp("The envelope's band-pass, Hz (default: the kurtogram's, the most impulsive band).", valueName: "low-high"))
    var band: String?

    @Option(help: ArgumentHelp("The shaft's frequency in Hz; auto LOW-HIGH: followed in that range by its harmonics; auto alone: between 5 and 200 Hz.", valueName: "hz|auto [low-high]"))
    var shaft: String?

    @Option(help: ArgumentHelp("The bearing, as [vibration] bearing says it: geometry N d D [angle] (rolling elements, their diameter, the pitch diameter, the contact angle in degrees) or factors BPFO BPFI BSF FTF; n,d,D[,angle] is short for geometry.", valueName: "geometry|factors ..."))
    var bearing: String?

    /// The settings, or a usage error naming the option. The values are
    /// spelt as in acceld's [vibration] (one parser), so a figure tried
    /// here can be pasted into the configuration.
    func settings() throws -> VibrationSettings {
        var settings = VibrationSettings()
        settings.window = window
        settings.overlap = overlap
        if let band { settings.envelopeBand = try parse("--band", band) { try Configuration.band(parsing: $0) } }
        if let shaft { settings.shaft = shaft == "auto" ? .estimated(5...200) : try parse("--shaft", shaft, Configuration.shaft(parsing:)) }
        // Digits first: the short form, n,d,D[,angle].
        if let bearing { settings.bearing = try parse("--bearing", bearing) { try Configuration.bearing(parsing: $0.first?.isNumber == true ? "geometry " + $0 : $0) } }
        return settings
    }

    /// `read(value)`, its error a usage error that names the option.
    private func parse<Value>(_ option: String, _ value: String, _ read: (String) throws -> Value) throws -> Value {
        do { return try read(value) } catch { throw ToolError.usage("\(option) \(value): \(error)") }
    }
}
