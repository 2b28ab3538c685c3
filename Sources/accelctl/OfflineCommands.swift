// SPDX-License-Identifier: Apache-2.0
import AccelConfiguration
import AccelCore
import AccelDriver
import AccelMotion
import AccelTools
import ArgumentParser

struct ReplayCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "replay",
        abstract: "The same as 'acceld replay': a trace through the chip model and the pipeline, NDJSON out.",
        discussion: "Example: accelctl replay fall.csv --rate 400 --events-only"
    )

    @Argument(help: "A trace file, or a built-in motion.")
    var trace: String

    @Option(help: "Output data rate of the simulated chip, Hz: 100 or 400.")
    var rate: Int = 100

    @Option(help: "Full scale of the simulated chip, g: 2 or 8.")
    var range: Int = 2

    @Option(help: ArgumentHelp("Configuration file with pipeline tunables.", valueName: "file"))
    var config: String?

    @Flag(help: "Print events only, not frames.")
    var eventsOnly = false

    func run() throws {
        var configuration = guarded { try config.map { try Configuration(contentsOf: $0) } ?? Configuration() }
        configuration.device.rate = rate
        configuration.device.range = range
        let motion = guarded { try DeviceSource.motion(named: trace) }
        let writer = LineWriter(fd: 1)
        defer { writer.flush() }
        guarded { try Replay(motion: motion, configuration: configuration).run(writingTo: writer, frames: !eventsOnly) }
    }
}

struct PlotCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "plot",
        abstract: "Draw a trace as an SVG chart: x, y, z over time, with events marked.",
        discussion: """
            --show acc plots the trace as recorded; gravity and user run it through
            the pipeline first (as replay does). Events come from the pipeline too.
            Example: accelctl plot fall.csv -o fall.svg --show user
            """
    )

    enum Quantity: String, ExpressibleByArgument, CaseIterable { case acc, gravity, user }

    @Argument(help: "A trace file.")
    var trace: String

    @Option(name: .shortAndLong, help: "The SVG file to write.")
    var output: String

    @Option(help: "What to plot: acc (the trace), gravity or user acceleration.")
    var show: Quantity = .acc

    @Flag(inversion: .prefixedNo, help: "Mark the pipeline's events.")
    var events = true

    func run() throws {
        let recording = guarded { try Trace(contentsOf: trace) }
        var times = recording.times.map { $0 - recording.times[0] }
        var values = recording.samples
        var markers: [SVGPlot.Marker] = []
        if events || show != .acc {
            var frames: [Frame] = []
            guarded {
                try Replay(motion: TraceMotion(recording, name: trace), configuration: Configuration()).run(
                    onFrame: { if show != .acc { frames.append($0) } },
                    onEvent: { event in
                        let label: String = switch event {
                        case .orientation(let o): o.orientation.rawValue
                        case .shake(.started): "shake"
                        case .shake(.ended): "shake over"
                        case .freeFall(.started): "fall?"
                        case .freeFall(.confirmed): "fall"
                        case .freeFall(.withdrawn): "no fall"
                        case .freeFall(.ended): "landed"
                        case .movement(let m): "move \(m.direction)"
                        case .tap(let tap): tap.count == 2 ? "double tap" : "tap"
                        }
                        markers.append(SVGPlot.Marker(t: event.t, label: label))
                    })
            }
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
}
