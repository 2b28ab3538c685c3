// SPDX-License-Identifier: Apache-2.0
import AccelConfiguration
import AccelDaemon
import AccelCore
import AccelDriver
import AccelParts
import AccelReplay
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

    @Argument(help: ArgumentHelp("A trace file, or a built-in motion (\(DeviceSource.builtInMotions.joined(separator: ", "))).", valueName: "trace"))
    var trace: String

    @Option(help: ArgumentHelp("The part the chip model plays. Default: the part the trace's '# device:' line names, else the configuration's, else LIS302DL.", valueName: "part"),
            completion: .list(ChipProfile.partNames))
    var part: String?

    @Option(help: ArgumentHelp("Output data rate of the simulated chip, Hz, from the part's table, or 'auto' (the part's rate nearest 100 Hz). Default: the configuration's.", valueName: "hz|auto"))
    var rate: RateChoice?

    @Option(help: "Full scale of the simulated chip, g, from the part's table. Default: the configuration's, else the part's smallest.")
    var range: Int?

    @Option(help: ArgumentHelp("Power mode of the simulated chip, where the part has several. Default: the part's first.", valueName: "mode"))
    var mode: String?

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
        if let part {
            guard let profile = ChipProfile.named(part) else { exitWithError(DriverError.unknownPart(part)) }
            configuration.device.part = profile.name
        } else if let recorded = (motion as? TraceMotion)?.trace.recordedPart {
            // The part the trace was recorded on plays it, unless named.
            configuration.device.part = recorded.name
            printError("acceld replay: playing the \(recorded.name), the part \(trace) was recorded on (--part plays another)")
        }
        if let rate { configuration.device.rate = rate.setting }
        if let range { configuration.device.range = range }
        if let mode { configuration.device.mode = mode.lowercased() }
        if let (key, reason) = configuration.device.problem(on: configuration.device.profile ?? .lis302dl) {
            exitWithError(ValidationError("--\(key): \(reason)"))
        }
        let part = configuration.device.profile ?? .lis302dl
        if let notice = DeviceSource.ignoredRotation(motion, part: part) { printError("acceld replay: \(notice)") }
        if let notice = DeviceSource.resamplingNotice(motion, rate: Double(configuration.device.configuration.rate)) {
            printError("acceld replay: \(notice)")
        }
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
