// SPDX-License-Identifier: Apache-2.0
import AccelCore
import AccelProtocol
import AccelVibration

/// What `accelctl vibration` shows beside the window itself.
public struct VibrationScreenContext: Sendable {
    /// The device and the windows, for the title line.
    public var title = ""
    /// The class to judge velocity by, when the user named one; the
    /// daemon's messages carry a zone only once its configuration names a class.
    public var machineClass: MachineClass?
    public var scale = AmplitudeScale.log
    /// The last `machine` message.
    public var lastChange: MachineMessage?
    /// How instants are shown: local time, as `accelctl events` shows them.
    public var clock = EventClock.wallClock
    public init(title: String = "", machineClass: MachineClass? = nil, scale: AmplitudeScale = .log, lastChange: MachineMessage? = nil,
                clock: EventClock = .wallClock) {
        (self.title, self.machineClass, self.scale, self.lastChange, self.clock) = (title, machineClass, scale, lastChange, clock)
    }
}

/// Draws one vibration window as lines of text: the figures per axis and
/// for the vector, velocity with its ISO zone, the strongest lines, the
/// configured orders, the machine's state, a clipped window's warning, and
/// the spectrum as bars. Pure, so it is tested on real messages without a
/// terminal; `accelctl vibration` redraws it per window.
public enum VibrationScreen {
    public static func render(_ m: VibrationMessage?, context: VibrationScreenContext = VibrationScreenContext(),
                              width: Int = 80, height: Int = 24) -> [String] {
        let width = max(width, 40)
        var lines = [fit("vibration · \(context.title)", width - 9) + "  q quits"]
        guard let m else {
            lines.append("waiting for the first window…")
            return finish(lines, width: width, height: height)
        }
        // The change's time only while the window's state is still the one it changed to.
        let since = context.lastChange.flatMap { $0.state == m.state ? " since \(context.clock.text($0.t)) (was \($0.from))" : nil } ?? ""
        lines.append("machine \(m.state)\(since) · window at \(context.clock.text(m.t)), \(fixed(m.rate, 1)) Hz")
        lines.append(m.clipped ? clippedWarning : "")
        lines.append("        RMS g   peak g  crest   kurt  vel mm/s  dominant")
        for (name, axis) in [("x", m.x), ("y", m.y), ("z", m.z)] {
            lines.append(pad(name, 6) + figures(rms: axis.rms, peak: axis.peak, crest: axis.crest, kurtosis: axis.kurtosis, velocity: axis.velocity)
                         + "  " + (axis.dominant.map(lineText) ?? "-"))
        }
        lines.append("vector" + figures(rms: m.rms, peak: m.peak, crest: m.crest, kurtosis: nil, velocity: m.velocity)
                     + "  " + zoneText(m, machineClass: context.machineClass))
        lines.append("peaks  " + (m.peaks.isEmpty ? "none" : m.peaks.prefix(5).map(lineText).joined(separator: " · ")))
        if !m.orders.isEmpty {
            lines.append("orders " + m.orders.map(orderText).joined(separator: " · "))
            if let bearing = m.bearing { lines.append(bearingText(bearing, m)) }
        } else {
            let band = m.envelopeBand.count == 2 ? " \(fixed(m.envelopeBand[0], 0))-\(fixed(m.envelopeBand[1], 0)) Hz" : ""
            lines.append("envelope\(band): "
                         + (m.envelopePeaks.isEmpty ? "none" : m.envelopePeaks.prefix(4).map(lineText).joined(separator: " · ")))
        }
        // The spectrum takes the rest: its title, the bars, the axis and its labels.
        let rows = height - lines.count - 3
        if let spectrum = m.spectrum, rows >= 3 {
            let span = Double(spectrum.amplitudes.count) * spectrum.step
            lines.append("spectrum · \(context.scale.rawValue) amplitude · 0-\(fixed(span, 0)) Hz, "
                         + "\(fixed(span / Double(max(width - TerminalSpectrum.gutter, 1)), 1)) Hz a column, each its largest bin")
            lines += TerminalSpectrum.draw(spectrum, width: width, rows: rows, scale: context.scale)
        } else if m.spectrum == nil {
            lines.append("no spectrum in these windows (--bins 0)")
        }
        return finish(lines, width: width, height: height)
    }

    public static let clippedWarning = "!! CLIPPED: a sample reached the range; the figures understate it"

    /// One line a window, for a pipe or a log: `accelctl vibration` when
    /// standard output is not a terminal.
    public static func summary(_ m: VibrationMessage, machineClass: MachineClass? = nil, clock: EventClock = .wallClock) -> String {
        var text = "\(clock.text(m.t)) \(m.state) rms \(fixed(m.rms, 4)) g peak \(fixed(m.peak, 4)) g crest \(fixed(m.crest, 2))"
            + " velocity \(fixed(m.velocity, 2)) mm/s"
        if let zone = zone(m, machineClass: machineClass) { text += " zone \(zone)" }
        text += " dominant " + (m.peaks.first.map(lineText) ?? "none")
        if let bearing = m.bearing { text += " bearing \(bearing.condition) \(bearing.order) \(fixed(bearing.indicator, 1)) dB" }
        if m.clipped { text += " CLIPPED" }
        return text
    }

    /// A `machine` message in words.
    public static func change(_ c: MachineMessage, clock: EventClock = .wallClock) -> String {
        "\(c.state) since \(clock.text(c.t)) (was \(c.from))"
    }

    /// The zone by the user's class where one is named, else the daemon's.
    static func zone(_ m: VibrationMessage, machineClass: MachineClass?) -> String? {
        machineClass.map { $0.zone(velocity: m.velocity).rawValue } ?? m.zone
    }

    static func zoneText(_ m: VibrationMessage, machineClass: MachineClass?) -> String {
        guard let zone = zone(m, machineClass: machineClass) else { return "zone: name a class (--class I, or [vibration] machine-class)" }
        return "zone \(zone) " + (machineClass.map { "(class \($0.name))" } ?? "(acceld's class)")
    }

    static func figures(rms: Double, peak: Double, crest: Double, kurtosis: Double?, velocity: Double) -> String {
        pad(fixed(rms, 5), 9, right: true) + pad(fixed(peak, 5), 9, right: true) + pad(fixed(crest, 2), 7, right: true)
            + pad(kurtosis.map { fixed($0, 2) } ?? "-", 7, right: true) + pad(fixed(velocity, 2), 10, right: true)
    }

    /// [Hz, g] as "29.90 Hz 58.6 mg".
    static func lineText(_ line: [Double]) -> String {
        line.count == 2 ? "\(fixed(line[0], 2)) Hz \(TerminalSpectrum.amplitudeText(line[1]))" : "-"
    }

    static func orderText(_ o: VibrationMessage.Order) -> String {
        "\(o.name) \(fixed(o.frequency, 2)) Hz " + (o.amplitude.map(TerminalSpectrum.amplitudeText) ?? "no line")
            + (o.envelope.map { " (envelope \(TerminalSpectrum.amplitudeText($0)))" } ?? "")
    }

    /// The bearing's worst order first, in capitals beyond ok, then every
    /// judged order's indicator and the average they come from.
    static func bearingText(_ bearing: VibrationMessage.Bearing, _ m: VibrationMessage) -> String {
        let judged = m.orders.compactMap { o in
            o.condition.map { "\(o.name) \(fixed(o.indicator ?? 0, 1)) dB \($0)" }
        }
        let worst = bearing.condition == "ok" ? "ok" : bearing.condition.uppercased()
        return "bearing \(worst) (\(bearing.order)) · " + judged.joined(separator: " · ")
            + " · over the floor of \(m.averaged) envelopes, \(fixed(m.averageSpan, 1)) s"
    }

    static func finish(_ lines: [String], width: Int, height: Int) -> [String] {
        var lines = Array(lines.prefix(max(height, 1)))
        while lines.count < height { lines.append("") }
        return lines.map { fit($0, width) }
    }

    static func pad(_ s: String, _ width: Int, right: Bool = false) -> String {
        let room = String(repeating: " ", count: max(width - s.count, 0))
        return right ? room + s : s + room
    }

    static func fit(_ s: String, _ width: Int) -> String {
        s.count <= width ? s : String(s.prefix(max(width - 1, 0))) + "…"
    }
}
