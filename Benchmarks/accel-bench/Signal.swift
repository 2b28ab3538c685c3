// SPDX-License-Identifier: Apache-2.0
import AccelConfiguration
import AccelDaemon
import AccelEvaluation
import ArgumentParser

/// Issue #14's regression table: every development recording through the
/// chip model and the pipeline at 100 and 400 Hz, judged against what the
/// recordings are known to contain. docs/ALGORITHMS.md keeps its output.
struct Signal: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "The detectors' regression table on ../shared/data at 100 and 400 Hz (Markdown), then gravity, shake and free fall with and without the gyroscope, then the vibration recordings.")

    @Option(help: ArgumentHelp("The development recordings.", valueName: "dir"))
    var data = "../shared/data"

    @Option(help: ArgumentHelp("Configuration file with pipeline tunables (default: the built-in defaults).", valueName: "file"))
    var config: String?

    @Option(help: "Chip rates to replay at.")
    var rates: [Int] = [100, 400]

    func run() throws {
        let configuration = try config.map { try Configuration(contentsOf: $0) } ?? Configuration()
        let evaluation = SignalEvaluation(data: DevelopmentData(root: data), configuration: configuration)
        let reports = try rates.map { try evaluation.run(rate: $0) }
        print(SignalReport.table(reports))
        for report in reports where !report.filesWithFalseFalls.isEmpty || !report.filesWithFalseShakes.isEmpty {
            print("\n\(report.rate) Hz: false falls in \(report.filesWithFalseFalls.joined(separator: ", ")); shakes in \(report.filesWithFalseShakes.joined(separator: ", "))")
        }
        // The gyroscope's fusion, where the recordings have rotation rates.
        let fusion = FusionEvaluation(data: DevelopmentData(root: data), settings: configuration.motion)
        print("")
        for rate in rates { try fusion.run(rate: rate).lines.forEach { print($0) } }
        // Shake and free fall fed with and without the gyroscope, on the same recordings.
        let detectors = GyroDetectorEvaluation(data: DevelopmentData(root: data), configuration: configuration)
        for rate in rates { print("\n" + (try detectors.run(rate: rate).table)) }
        // Machines' vibration: the recordings with known bearing defects and the unbalanced motor.
        print("\n" + (try VibrationEvaluation.recordingsTable(data: data)))
    }
}
