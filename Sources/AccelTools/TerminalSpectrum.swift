// SPDX-License-Identifier: Apache-2.0
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import AccelCore
import AccelProtocol

/// How bar heights follow amplitude: log shows the small lines beside the
/// big one (a bearing's defect under the shaft's unbalance), linear shows
/// what dominates.
public enum AmplitudeScale: String, Sendable, CaseIterable {
    case log, linear

    /// Decades a log scale spans below the tallest bin: 60 dB, as far as a
    /// 16-bit part's noise floor lets a 1 s window see.
    public static let logDecades = 3.0
}

/// A vibration message's spectrum as bars of Unicode block characters,
/// frequency across (0 to the top bin's edge), with an amplitude gutter on
/// the left and a labelled frequency axis below. Pure: `accelctl vibration`
/// adds the terminal.
public enum TerminalSpectrum {
    /// Columns of the gutter that holds the amplitude labels.
    public static let gutter = 9
    static let eighths: [Character] = ["▁", "▂", "▃", "▄", "▅", "▆", "▇", "█"]

    /// `rows` of bars (top first), then the axis and its labels: `rows + 2`
    /// lines, each exactly `width` characters.
    public static func draw(_ bins: VibrationMessage.Bins, width: Int, rows: Int, scale: AmplitudeScale) -> [String] {
        let plotWidth = max(width - gutter, 1)
        let values = columns(bins, count: plotWidth)
        let top = values.max() ?? 0
        let heights = values.map { height(of: $0, top: top, scale: scale) }
        var lines: [String] = []
        for row in 0..<rows {
            let level = rows - 1 - row  // whole rows below this one
            let cells = heights.map { h -> Character in
                let fill = Int((h * Double(rows * 8)).rounded()) - level * 8
                return fill >= 8 ? "█" : fill <= 0 ? " " : eighths[fill - 1]
            }
            let label = row == 0 ? amplitudeText(top) : row == rows - 1 ? floorText(top, scale: scale) : ""
            lines.append(pad(label, gutter) + String(cells))
        }
        let span = Double(bins.amplitudes.count) * bins.step
        let (axis, labels) = frequencyAxis(span: span, plotWidth: plotWidth)
        lines.append(pad("", gutter) + axis)
        lines.append(pad("Hz", gutter) + labels)
        return lines.map { pad($0, width) }
    }

    /// One value per column: with more bins than columns each bin goes to
    /// the column holding its centre and a column shows its largest bin, so
    /// no line is lost however narrow the terminal; with fewer, a column
    /// shows the bin its centre falls in.
    public static func columns(_ bins: VibrationMessage.Bins, count: Int) -> [Double] {
        let n = bins.amplitudes.count
        guard n > 0, count > 0 else { return [Double](repeating: 0, count: max(count, 0)) }
        if n >= count {
            var values = [Double](repeating: 0, count: count)
            for (i, amplitude) in bins.amplitudes.enumerated() {
                let column = min(Int((Double(i) + 0.5) * Double(count) / Double(n)), count - 1)
                values[column] = max(values[column], amplitude)
            }
            return values
        }
        return (0..<count).map { c in bins.amplitudes[min(Int((Double(c) + 0.5) * Double(n) / Double(count)), n - 1)] }
    }

    /// 0 (no bar) to 1 (the full height) for an amplitude against the tallest.
    static func height(of amplitude: Double, top: Double, scale: AmplitudeScale) -> Double {
        guard top > 0, amplitude > 0 else { return 0 }
        switch scale {
        case .linear:
            return min(amplitude / top, 1)
        case .log:
            let decades = log10(amplitude / top) + AmplitudeScale.logDecades
            return min(max(decades / AmplitudeScale.logDecades, 0), 1)
        }
    }

    /// The axis (a tick under each labelled frequency) and the labels, at
    /// round steps (1, 2 or 5 × 10ⁿ Hz) at least 8 columns apart.
    static func frequencyAxis(span: Double, plotWidth: Int) -> (String, String) {
        guard span > 0 else { return (String(repeating: "─", count: plotWidth), "") }
        let perColumn = span / Double(plotWidth)
        var step = pow(10, floor(log10(max(perColumn * 8, 1e-9))))
        for factor in [1.0, 2, 5, 10] where step * factor >= perColumn * 8 {
            step *= factor
            break
        }
        var axis = [Character](repeating: "─", count: plotWidth)
        var labels = [Character](repeating: " ", count: plotWidth)
        var frequency = 0.0
        while frequency < span {
            let column = Int(frequency / perColumn)
            let text = Array(formatHertz(frequency, step: step))
            if column + text.count <= plotWidth {
                axis[column] = "┬"
                for (k, character) in text.enumerated() { labels[column + k] = character }
            }
            frequency += step
        }
        return (String(axis), String(labels))
    }

    static func formatHertz(_ frequency: Double, step: Double) -> String {
        step >= 1 ? String(Int(frequency.rounded())) : fixed(frequency, step >= 0.1 ? 1 : 2)
    }

    /// An amplitude in g as a person reads it: mg below 1 g.
    public static func amplitudeText(_ g: Double) -> String {
        if g >= 1 { return fixed(g, 2) + " g" }
        if g >= 0.01 { return fixed(g * 1000, 1) + " mg" }
        return fixed(g * 1000, 2) + " mg"
    }

    static func floorText(_ top: Double, scale: AmplitudeScale) -> String {
        scale == .linear ? "0" : amplitudeText(top * pow(10, -AmplitudeScale.logDecades))
    }

    static func pad(_ s: String, _ width: Int) -> String {
        s.count >= width ? String(s.prefix(width)) : s + String(repeating: " ", count: width - s.count)
    }
}
