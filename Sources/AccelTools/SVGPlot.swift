// SPDX-License-Identifier: Apache-2.0
import AccelCore
import AccelDriver

/// x, y and z over time as an SVG, drawn like Apple's AccelerometerGraph:
/// three coloured traces on a light grid, with events shaded. Our own small
/// renderer: no browser, no dependency.
public struct SVGPlot {
    public struct Series {
        public let name: String
        public let color: String
        public let values: [Double]
        public init(name: String, color: String, values: [Double]) {
            self.name = name
            self.color = color
            self.values = values
        }
    }

    /// An event: a moment (an orientation change) or, with `end`, a span
    /// (a shake, a fall, a movement, a tap), shaded in its kind's colour.
    public struct Marker {
        public enum Kind: String, CaseIterable {
            case orientation, shake, fall, movement, tap
            /// A spectrum's line, or a machine's configured frequency.
            case line
            var color: String {
                switch self {
                case .line: "#444444"
                case .orientation: "#8a2be2"
                case .shake: "#ff7f0e"
                case .fall: "#d62728"
                case .movement: "#17becf"
                case .tap: "#7f7f7f"
                }
            }
        }
        public let t: Double
        public let end: Double?
        public let label: String
        public let kind: Kind
        public init(t: Double, end: Double? = nil, label: String, kind: Kind = .orientation) {
            self.t = t
            self.end = end
            self.label = label
            self.kind = kind
        }
    }

    /// Where a label is drawn. Its width is reckoned as an upper bound
    /// (7.5 px a character at 12 px sans-serif, wider than any common
    /// face's average), so labels that do not overlap here do not overlap
    /// on screen either.
    struct LabelBox: Equatable {
        let x: Double, lane: Int
        static func width(of text: String) -> Double { Double(text.count) * 7.5 + 4 }
    }

    /// Puts each label (left edges in order) in the first lane where it
    /// clears the one before it; labels past `lanes` are left out.
    static func layout(_ labels: [(x: Double, text: String)], lanes: Int) -> [LabelBox?] {
        var ends = [Double](repeating: -.infinity, count: lanes)
        return labels.map { label in
            guard let lane = ends.firstIndex(where: { $0 <= label.x }) else { return nil }
            ends[lane] = label.x + LabelBox.width(of: label.text)
            return LabelBox(x: label.x, lane: lane)
        }
    }

    public var width = 960.0
    public var height = 420.0
    let left = 60.0, right = 20.0, top = 36.0, bottom = 40.0
    static let laneHeight = 14.0

    public init() {}

    /// `times` are the x axis's values, in `xUnit` (seconds, or hertz for a spectrum).
    public func render(title: String, times: [Double], series: [Series], markers: [Marker] = [], unit: String = "g", xUnit: String = "s") -> String {
        let t0 = times.first ?? 0, t1 = max(times.last ?? 1, t0 + 1e-6)
        let all = series.flatMap(\.values)
        var low = all.min() ?? -1, high = all.max() ?? 1
        if high - low < 0.1 { low -= 0.05; high += 0.05 }
        let pad = (high - low) * 0.05
        low -= pad
        high += pad
        let plotW = width - left - right, plotH = height - top - bottom
        func x(_ t: Double) -> Double { left + (t - t0) / (t1 - t0) * plotW }
        func y(_ v: Double) -> Double { top + (high - v) / (high - low) * plotH }
        func n(_ v: Double) -> String { fixed(v, 1) }

        var svg = """
            <?xml version="1.0" encoding="UTF-8"?>
            <svg xmlns="http://www.w3.org/2000/svg" width="\(n(width))" height="\(n(height))" viewBox="0 0 \(n(width)) \(n(height))" font-family="sans-serif" font-size="12">
            <rect x="0" y="0" width="\(n(width))" height="\(n(height))" fill="white"/>
            <text x="\(n(left))" y="22" font-size="15" font-weight="bold">\(escape(title))</text>

            """
        // Grid and labels.
        for v in ticks(low, high) {
            svg += "<line x1=\"\(n(left))\" y1=\"\(n(y(v)))\" x2=\"\(n(width - right))\" y2=\"\(n(y(v)))\" stroke=\"\(v == 0 ? "#999" : "#e4e4e4")\"/>\n"
            svg += "<text x=\"\(n(left - 6))\" y=\"\(n(y(v) + 4))\" text-anchor=\"end\">\(fixed(v, v.rounded() == v ? 0 : 1)) \(unit)</text>\n"
        }
        for t in ticks(t0, t1) {
            svg += "<line x1=\"\(n(x(t)))\" y1=\"\(n(top))\" x2=\"\(n(x(t)))\" y2=\"\(n(height - bottom))\" stroke=\"#eeeeee\"/>\n"
            svg += "<text x=\"\(n(x(t)))\" y=\"\(n(height - bottom + 16))\" text-anchor=\"middle\">\(fixed(t, t.rounded() == t ? 0 : 1)) \(xUnit)</text>\n"
        }
        // Events: a span shaded over its duration, a moment a dashed line;
        // labels in lanes from the top, so that none overlaps another.
        let shown = markers.filter { ($0.end ?? $0.t) >= t0 && $0.t <= t1 }.sorted { $0.t < $1.t }
        for marker in shown {
            let color = marker.kind.color
            if let end = marker.end {
                let from = x(max(marker.t, t0)), to = x(min(end, t1))
                svg += "<rect class=\"event-span\" data-kind=\"\(marker.kind.rawValue)\" x=\"\(n(from))\" y=\"\(n(top))\" width=\"\(n(max(to - from, 1)))\" height=\"\(n(plotH))\" fill=\"\(color)\" fill-opacity=\"0.15\"/>\n"
            } else {
                svg += "<line class=\"event\" data-kind=\"\(marker.kind.rawValue)\" x1=\"\(n(x(marker.t)))\" y1=\"\(n(top))\" x2=\"\(n(x(marker.t)))\" y2=\"\(n(height - bottom))\" stroke=\"\(color)\" stroke-dasharray=\"4 3\"/>\n"
            }
        }
        let lanes = max(1, Int((plotH - 4) / Self.laneHeight))
        let boxes = Self.layout(shown.map { (x(max($0.t, t0)) + 2, $0.label) }, lanes: lanes)
        for (marker, box) in zip(shown, boxes) {
            guard let box else { continue }
            svg += "<text class=\"event-label\" x=\"\(n(box.x))\" y=\"\(n(top + 12 + Double(box.lane) * Self.laneHeight))\" fill=\"\(marker.kind.color)\">\(escape(marker.label))</text>\n"
        }
        let omitted = boxes.filter { $0 == nil }.count
        if omitted > 0 {
            svg += "<text class=\"event-omitted\" x=\"\(n(width - right))\" y=\"\(n(height - 6))\" text-anchor=\"end\" fill=\"#666\">\(omitted) more event labels not shown</text>\n"
        }
        // Traces: at most two points per pixel column (its min and max), so
        // a 20 ms spike survives any zoom.
        for (index, s) in series.enumerated() {
            var points: [String] = []
            var column = -1, lowIndex = 0, highIndex = 0
            func flush() {
                guard column >= 0 else { return }
                let ordered = lowIndex == highIndex ? [lowIndex] : [min(lowIndex, highIndex), max(lowIndex, highIndex)]
                for i in ordered { points.append("\(n(x(times[i]))),\(n(y(s.values[i])))") }
            }
            for i in s.values.indices {
                let c = Int(x(times[i]))
                if c != column {
                    flush()
                    column = c
                    lowIndex = i
                    highIndex = i
                } else {
                    if s.values[i] < s.values[lowIndex] { lowIndex = i }
                    if s.values[i] > s.values[highIndex] { highIndex = i }
                }
            }
            flush()
            svg += "<polyline class=\"series\" data-name=\"\(s.name)\" fill=\"none\" stroke=\"\(s.color)\" stroke-width=\"1.2\" points=\"\(points.joined(separator: " "))\"/>\n"
            svg += "<text x=\"\(n(width - right - 120 + Double(index) * 40))\" y=\"22\" fill=\"\(s.color)\" font-weight=\"bold\">\(escape(s.name))</text>\n"
        }
        svg += "<rect x=\"\(n(left))\" y=\"\(n(top))\" width=\"\(n(plotW))\" height=\"\(n(plotH))\" fill=\"none\" stroke=\"#666\"/>\n</svg>\n"
        return svg
    }

    /// Round tick values between low and high, about six of them.
    func ticks(_ low: Double, _ high: Double) -> [Double] {
        let raw = (high - low) / 6
        let magnitude = pow10(floor(log10(raw)))
        let step = [1.0, 2.0, 5.0, 10.0].map { $0 * magnitude }.first { $0 >= raw } ?? raw
        var values: [Double] = []
        var v = (low / step).rounded(.up) * step
        while v <= high {
            values.append(abs(v) < step * 1e-9 ? 0 : v)
            v += step
        }
        return values
    }

    private func pow10(_ e: Double) -> Double { exp(e * log(10)) }

    private func escape(_ s: String) -> String {
        s.replacingAll("&", "&amp;").replacingAll("<", "&lt;").replacingAll(">", "&gt;").replacingAll("\"", "&quot;")
    }
}

#if canImport(Glibc)
import Glibc
#endif

extension String {
    func replacingAll(_ target: Character, _ replacement: String) -> String {
        var out = ""
        for c in self { if c == target { out += replacement } else { out.append(c) } }
        return out
    }
}
