// SPDX-License-Identifier: Apache-2.0
import AccelConfiguration
import AccelCore
import AccelDriver
import AccelMotion
import AccelReplay
import AccelTools
import AccelVibration
import ArgumentParser

/// accelctl's own replay went (acceld replay is the one): the name is kept
/// only to say where it went, for scripts and fingers used to it.
struct ReplayMovedCommand: ParsableCommand {
    static let configuration = CommandConfiguration(commandName: "replay", shouldDisplay: false)

    @Argument(parsing: .allUnrecognized) var arguments: [String] = []

    func run() throws {
        printError("accelctl: replay is acceld's: run acceld replay \(arguments.joined(separator: " ")) (the same trace and options, and --part, --mode and the trace's # device: line; acceld replay --help)")
        throw ExitCode(64)
    }
}

struct PlotCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "plot",
        abstract: "Draw a trace as an SVG chart: x, y, z over time, with events marked, or its spectrum.",
        discussion: """
            --show acc plots the trace as recorded; gravity and user run it through
            the pipeline first (as acceld replay does). Events come from the pipeline too.
            --show spectrum and envelope draw the vibration's spectrum, or its
            envelope's, averaged over windows (docs/VIBRATION.md), the strongest
            lines labelled and --shaft's and --bearing's frequencies marked. They
            take the values [vibration] shaft and bearing take in acceld.conf.
            Examples:
              accelctl plot fall.csv -o fall.svg --show user
              accelctl plot pump.csv -o pump.svg --show envelope \\
                  --shaft 29.95 --bearing 9,7.94,39.04
              accelctl plot pump.csv -o pump.svg --show spectrum \\
                  --shaft "auto 20-40" --bearing "factors 3.585 5.415 2.357 0.398"
            """
    )

    enum Quantity: String, ExpressibleByArgument, CaseIterable { case acc, gravity, user, spectrum, envelope }

    @Argument(help: "A trace file.")
    var trace: String

    @Option(name: .shortAndLong, help: "The SVG file to write.")
    var output: String

    @Option(help: "What to plot: acc (the trace), gravity or user acceleration, the spectrum or the envelope's spectrum.")
    var show: Quantity = .acc

    @OptionGroup var vibration: VibrationOptions

    @Flag(inversion: .prefixedNo, help: "Mark the pipeline's events.")
    var events = true

    func run() throws {
        let recording = guarded { try Trace(contentsOf: trace) }
        if show == .spectrum || show == .envelope { return plotSpectrum(recording) }
        var times = recording.times.map { $0 - recording.times[0] }
        var values = recording.samples
        var markers: [SVGPlot.Marker] = []
        if events || show != .acc {
            var frames: [Frame] = []
            var open: [SVGPlot.Marker.Kind: Double] = [:]  // spans started, not yet over
            guarded {
                try Replay(motion: TraceMotion(recording, name: trace), configuration: Configuration()).run(
                    onFrame: { if show != .acc { frames.append($0) } },
                    onEvent: { event in
                        switch event {
                        case .orientation(let o): markers.append(.init(t: o.t, label: o.orientation.rawValue))
                        case .shake(.started(_, let start)): open[.shake] = start
                        case .shake(.ended(_, let start, let duration, _)):
                            open[.shake] = nil
                            markers.append(.init(t: start, end: start + duration, label: "shake \(fixed(duration, 1)) s", kind: .shake))
                        case .freeFall(.started(_, let start)), .freeFall(.confirmed(_, let start)): open[.fall] = start
                        case .freeFall(.withdrawn(_, let start, let duration)):
                            open[.fall] = nil
                            markers.append(.init(t: start, end: start + duration, label: "no fall", kind: .fall))
                        case .freeFall(.ended(_, let start, let duration, let height)):
                            open[.fall] = nil
                            markers.append(.init(t: start, end: start + duration, label: "fall \(fixed(height, 2)) m", kind: .fall))
                        case .movement(let m):
                            markers.append(.init(t: m.start, end: m.start + m.duration, label: "move \(m.direction)", kind: .movement))
                        case .tap(let tap):
                            markers.append(.init(t: tap.start, end: tap.t, label: tap.count == 2 ? "double tap" : "tap", kind: .tap))
                        }
                    })
            }
            // A shake or fall still going when the recording ends.
            let last = recording.duration  // the replay's clock starts at 0, as `times` does
            for (kind, start) in open { markers.append(.init(t: start, end: last, label: kind == .shake ? "shake" : "fall", kind: kind)) }
            if show != .acc {
                times = frames.map(\.t)
                values = frames.map { show == .gravity ? $0.gravity : $0.user }
            }
        }
        if !events { markers = [] }
        let svg = SVGPlot().render(
            title: "\(trace.split(separator: "/").last ?? "") · \(show == .acc ? "acceleration" : show == .gravity ? "gravity" : "user acceleration")",
            times: times,
            series: [
                SVGPlot.Series(name: "x", color: "#d62728", values: values.map(\.x)),
                SVGPlot.Series(name: "y", color: "#2ca02c", values: values.map(\.y)),
                SVGPlot.Series(name: "z", color: "#1f77b4", values: values.map(\.z)),
            ],
            markers: markers)
        guarded { try writeAtomically(svg, to: output) }
        print("wrote \(output): \(recording.count) samples, \(markers.count) events")
    }

    private func plotSpectrum(_ recording: Trace) {
        let chart = guarded {
            try SpectrumChart.render(title: String(trace.split(separator: "/").last ?? ""), samples: recording.samples, times: recording.times,
                                     settings: vibration.settings(), kind: show == .spectrum ? .spectrum : .envelope)
        }
        guarded { try writeAtomically(chart.svg, to: output) }
        let lines = chart.peaks.prefix(3).map { "\(fixed($0.frequency, 1)) Hz" }.joined(separator: ", ")
        let gaps = chart.gaps == 0 ? "" : " (\(chart.gaps) gaps in the recording, windows started again after each)"
        print("wrote \(output): \(chart.windows) windows at \(fixed(chart.rate, 0)) Hz\(gaps); strongest lines \(lines)")
    }
}
