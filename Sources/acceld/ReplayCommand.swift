// SPDX-License-Identifier: Apache-2.0
import AccelConfiguration
import AccelDaemon
import AccelCore
import AccelDriver
import AccelParts
import AccelProtocol
import AccelReplay
import ArgumentParser

struct ReplayCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "replay",
        abstract: "Run a recording through the daemon on the chip model, printing what a client gets.",
        discussion: """
            The daemon's own core (the chip model playing the recording, the
            sampler, the pipeline, the vibration analysis and the machine's
            state) on a virtual clock, as fast as the CPU allows, with
            standard output as one client: one JSON message per line of the
            streams it watches (frames and the five event streams unless
            --streams names others). The same input gives byte-identical
            output.

            Examples:
              acceld replay ../shared/data/shake/physilog_two_shakes.csv --rate 400
              acceld replay fall.csv --events-only | grep freefall
              acceld replay tour            # a built-in motion works too
              acceld replay imu.mcap        # a ROS 2 bag: its /imu/data_raw
              acceld replay machine --seconds 60 --part LSM6DSO --rate 6660 \\
                  --streams vibration,machine --spectrum 64
            """
    )

    @Argument(help: ArgumentHelp("A trace file (CSV, or a ROS 2 bag ending in .mcap), or a built-in motion (\(DeviceSource.builtInMotions.joined(separator: ", "))).", valueName: "trace"))
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

    @Option(help: ArgumentHelp("Seconds of the motion to play (default: all of it; a built-in motion without end, such as machine, needs it).", valueName: "s"))
    var seconds: Double?

    @Flag(help: "Print events only, not frames (--streams events).")
    var eventsOnly = false

    @Option(help: ArgumentHelp("The streams to print, as a watch request names them, comma-separated: \(StreamName.allCases.map(\.rawValue).joined(separator: ", ")), or events for the five event streams. Default: frames,events.", valueName: "names"))
    var streams: String?

    @OptionGroup(title: "Vibration windows (with --streams vibration)")
    var windows: VibrationWindowOptions

    @OptionGroup(title: "Traces")
    var playback: TracePlaybackOptions

    func run() throws {
        var configuration = Configuration()
        let motion: any MotionSource
        do {
            if let config { configuration = try Configuration(contentsOf: config) }
            motion = try ReplayMotion.named(trace, axis: playback.playback.axis)
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
        if let notice = DeviceSource.stillNotice(motion, part: part, playback: playback.playback) { printError("acceld replay: \(notice)") }
        if let notice = DeviceSource.resamplingNotice(motion, rate: Double(configuration.device.configuration.rate)) {
            printError("acceld replay: \(notice)")
        }
        let request = watchRequest()
        // (Unchecked: the run writes from one queue at a time, each drained
        // before the next step, so the writes never overlap.)
        nonisolated(unsafe) let writer = LineWriter(fd: 1)
        do {
            let replay = try ReplayRun(motion: motion, configuration: configuration, seconds: seconds, playback: playback.playback)
            try replay.watch(request) { writer.write(bytes: $0) }
            replay.run()
        } catch let error as ProtocolError {
            exitWithError(ValidationError(error.message))
        } catch {
            writer.flush()
            exitWithError(error)
        }
        writer.flush()
    }

    /// The watch request standard output sends, from --streams and the windows.
    private func watchRequest() -> Request {
        if eventsOnly && streams != nil { exitWithError(ValidationError("--events-only is --streams events: give one of them")) }
        let names = streams.map { $0.split(separator: ",").map { String($0.filter { $0 != " " }) } }
            ?? (eventsOnly ? ["events"] : ["frames", "events"])
        let watched: Set<StreamName>
        do throws(ProtocolError) { watched = try StreamName.parse(names) } catch { exitWithError(ValidationError("--streams: \(error.message)")) }
        return .watch(streams: watched, rate: nil, fields: .all, latency: nil,
                      vibration: watched.contains(.vibration) ? windows.watch : nil)
    }
}

/// A watch's `vibration` object, as options.
struct VibrationWindowOptions: ParsableArguments {
    @Option(help: ArgumentHelp("Window length, s.", valueName: "s"))
    var window: Double = 1

    @Option(help: ArgumentHelp("Fraction of a window shared with the next, 0 to 0.9.", valueName: "f"))
    var overlap: Double = 0.5

    @Option(help: ArgumentHelp("Bins of the spectrum sent with each window (0: none).", valueName: "bins"))
    var spectrum = 0

    @Option(help: ArgumentHelp("Bins of the envelope's spectrum (0: none).", valueName: "bins"))
    var envelope = 0

    var watch: VibrationWatch {
        VibrationWatch(window: window, overlap: overlap, spectrumBins: spectrum, envelopeBins: envelope)
    }
}
