// SPDX-License-Identifier: Apache-2.0
import AccelCore
import AccelDriver
import ArgumentParser

/// How the chip model plays a trace that is not a six-axis part's own:
/// `acceld --simulate TRACE` and `acceld replay` (docs/TRACE-FORMAT.md).
struct TracePlaybackOptions: ParsableArguments {
    @Option(help: ArgumentHelp("The board's axis a one-axis trace (header 't,a') was measured on; its other axes read a board lying flat and still.", valueName: "x|y|z"),
            completion: .list(Axis.allCases.map(\.rawValue)))
    var axis: String?

    @Flag(help: "The board of a trace without rotation rates was still (a machine on its mount): a part's gyroscope reads zero rather than refusing the trace.")
    var stillGyroscope = false

    func validate() throws {
        if let axis, Axis(rawValue: axis.lowercased()) == nil {
            throw ValidationError("--axis \(axis) is not an axis of the board: use x, y or z")
        }
    }

    var playback: TracePlayback {
        TracePlayback(axis: axis.flatMap { Axis(rawValue: $0.lowercased()) }, stillGyroscope: stillGyroscope)
    }
}
