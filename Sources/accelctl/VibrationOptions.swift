// SPDX-License-Identifier: Apache-2.0
import AccelVibration
import ArgumentParser

/// The vibration analysis's options for a recording (acceld's own come
/// from [vibration] in its configuration, docs/CONFIG.md).
struct VibrationOptions: ParsableArguments {
    @Option(help: "Window length, seconds (at least 3 periods of 10 Hz).")
    var window = 1.0

    @Option(help: "Fraction of a window shared with the next, 0 to 0.9.")
    var overlap = 0.5

    @Option(help: ArgumentHelp("The envelope's band-pass, Hz (default: 7.5 % to 45 % of the rate).", valueName: "low-high"))
    var band: String?

    @Option(help: ArgumentHelp("The shaft's frequency in Hz, or auto to take the strongest line between 5 and 200 Hz.", valueName: "hz|auto"))
    var shaft: String?

    @Option(help: ArgumentHelp("The bearing's geometry: rolling elements, their diameter, the pitch diameter (one unit), and the contact angle in degrees.", valueName: "n,d,D[,angle]"))
    var bearing: String?

    /// The settings, or a usage error naming the option.
    func settings() throws -> VibrationSettings {
        var settings = VibrationSettings()
        settings.window = window
        settings.overlap = overlap
        if let band {
            let edges = band.split(separator: "-").compactMap { Double($0) }
            guard edges.count == 2, edges[0] < edges[1] else { throw ToolError.usage("--band \(band): give the band as LOW-HIGH in Hz, for example 500-3000") }
            settings.envelopeBand = edges[0]...edges[1]
        }
        if let shaft {
            if shaft == "auto" {
                settings.shaft = .estimated(5...200)
            } else if let hertz = Double(shaft), hertz > 0 {
                settings.shaft = .fixed(hertz)
            } else {
                throw ToolError.usage("--shaft \(shaft): give the shaft's frequency in Hz (29.95 for 1,797 rpm), or auto")
            }
        }
        if let bearing {
            let values = bearing.split(separator: ",").compactMap { Double($0) }
            guard (3...4).contains(values.count), values[0] >= 3, values[1] > 0, values[2] > values[1] else {
                throw ToolError.usage("--bearing \(bearing): give the rolling elements, their diameter and the pitch diameter (and the contact angle), for example 9,7.94,39.04")
            }
            settings.bearing = BearingFactors(elements: Int(values[0]), rollerDiameter: values[1], pitchDiameter: values[2],
                                              contactAngle: values.count == 4 ? values[3] : 0)
        }
        return settings
    }
}
