// SPDX-License-Identifier: Apache-2.0
import AccelCore
import AccelVibration

extension VibrationEvaluation {
    /// The real recordings' rows of the regression table (Markdown), as
    /// `accel-bench vibration` and `accel-bench signal` print them: each
    /// bearing's strongest family in the averaged envelope, and the unbalanced
    /// motor's dominant line.
    public static func recordingsTable(data: String) throws -> String {
        var lines = [
            "| recording, through acceld replay on an LSM6DSO at 6,660 Hz (±16 g) | defect | nominal | envelope band | strongest family | found | error | indicators (dB) | its margin over the next order |",
            "|---|---|---|---|---|---|---|---|---|",
        ]
        var passed = 0, total = 0
        for name in DevelopmentData(root: data).files(in: "vibration") where name.contains("mfpt_") {
            let result = try bearing(VibrationRecording(path: data + "/" + name))
            total += 1
            if result.passes { passed += 1 }
            let indicators = result.indicators.map { "\($0.name) \(fixed($0.indicator, 1)) \($0.condition)" }.joined(separator: ", ")
            lines.append("| \(result.name) | \(result.expected) | \(fixed(result.nominal, 2)) Hz | \(fixed(result.band[0], 0))-\(fixed(result.band[1], 0)) Hz | \(result.strongest) | \(fixed(result.found, 2)) Hz | \(fixed((result.found / result.nominal - 1) * 100, 2)) % | \(indicators) | \(fixed(result.margin, 1)) dB |")
        }
        lines.append("bearing defects: \(passed) of \(total) recordings show their own defect's family strongest, its 1× line within 2 % and its indicator 6 dB over the next order's; target every one\n")
        let window = try motor(data + "/vibration/vibrationdaq_unbalanced_motor.csv")
        let line = window.peaks[0][0], bins = (line - 121.59) * window.duration
        lines.append("unbalanced motor through acceld replay on an LSM6DSO at 3,330 Hz: dominant line \(fixed(line, 2)) Hz, \(fixed(bins, 2)) bins from the recording's 121.59 Hz; target ½ bin")
        return lines.joined(separator: "\n")
    }
}
