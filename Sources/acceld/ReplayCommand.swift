// SPDX-License-Identifier: Apache-2.0
import AccelDaemon
import AccelDriver
import ArgumentParser

struct ReplayCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "replay",
        abstract: "Run a recording through the chip model and the pipeline, printing NDJSON.",
        discussion: """
            Prints what a client subscribed to everything would receive: one
            frame per chip sample and every event, one JSON message per line,
            in virtual time (as fast as the CPU allows). The same input gives
            byte-identical output.

            Examples:
              acceld replay ../shared/data/shake/physilog_two_shakes.csv --rate 400
              acceld replay fall.csv --events-only | grep freefall
              acceld replay tour            # a built-in motion works too
            """
    )

    @Argument(help: ArgumentHelp("A trace file, or a built-in motion (\(MotionScript.names.joined(separator: ", "))).", valueName: "trace"))
    var trace: String

    @Option(help: "Output data rate of the simulated chip, Hz: 100 or 400. Default: the configuration's.")
    var rate: Int?

    @Option(help: "Full scale of the simulated chip, g: 2 or 8. Default: the configuration's.")
    var range: Int?

    @Option(help: ArgumentHelp("Configuration file with pipeline tunables (see docs/CONFIG.md).", valueName: "file"))
    var config: String?

    @Flag(help: "Print events only, not frames.")
    var eventsOnly = false

    func run() throws {
        var configuration = Configuration()
        let motion: any MotionSource
        do {
            if let config { configuration = try Configuration(contentsOf: config) }
            motion = try DeviceSource.motion(named: trace)
        } catch {
            exitWithError(error)
        }
        if let rate { configuration.device.rate = rate }
        if let range { configuration.device.range = range }
        let writer = LineWriter(fd: 1)
        do {
            try Replay(motion: motion, configuration: configuration).run(writingTo: writer, frames: !eventsOnly)
        } catch {
            writer.flush()
            exitWithError(error)
        }
        writer.flush()
    }
}
