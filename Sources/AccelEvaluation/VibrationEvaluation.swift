// SPDX-License-Identifier: Apache-2.0
import AccelConfiguration
import AccelCore
import AccelDriver
import AccelParts
import AccelProtocol
import AccelReplay
import AccelVibration

/// The vibration analysis judged on the real recordings: each replayed at
/// a part's rate (resampled through an anti-aliasing filter) and read back
/// in the part's digits, as acceld would get it.
public enum VibrationEvaluation {
    /// MFPT's bearing as its description gives it (8 rollers of 0.235 in on
    /// a 1.245 in pitch circle, 0°): what a user would configure.
    public static let mfptBearing = BearingFactors(elements: 8, rollerDiameter: 0.235, pitchDiameter: 1.245)

    /// The first window a client watching `vibration` gets as `motion`
    /// plays through the daemon's core with `configuration` (acceld.conf's
    /// text), as `acceld replay` plays it; `seconds` for a motion without
    /// an end.
    public static func firstWindow(_ motion: any MotionSource, _ configuration: String, playback: TracePlayback = TracePlayback(),
                                   seconds: Double? = nil) throws -> VibrationMessage {
        let windows = try Replay(motion: motion, configuration: try Configuration(parsing: configuration))
            .vibration(playback: playback, seconds: seconds)
        guard let first = windows.first else { throw DevelopmentData.DataError(message: "\(motion.name): shorter than a window") }
        return first
    }

    /// The unbalanced motor's recording (three axes, no rotation rates) as
    /// `acceld replay FILE --part LSM6DSO --rate 3330 --range 16
    /// --still-gyroscope --streams vibration` plays it, the shaft followed
    /// between 50 and 200 Hz: its first window.
    public static func motor(_ path: String) throws -> VibrationMessage {
        try firstWindow(try DeviceSource.motion(named: path), """
            [device]
            part = LSM6DSO
            rate = 3330
            range = 16
            [vibration]
            shaft = auto 50-200
            """, playback: TracePlayback(stillGyroscope: true))
    }

    /// What the averaged envelope says about one bearing recording.
    public struct BearingResult: Sendable {
        public let name: String
        /// The recording's own defect ("bpfi", "bpfo") and its frequency.
        public let expected: String
        public let nominal: Double
        /// The bearing order whose family stands highest over the floor,
        /// and where its 1× line was found (0: no line).
        public let strongest: String
        public let found: Double
        /// Each bearing order's indicator, dB, and condition, from the last
        /// window (its average the longest the recording holds).
        public let indicators: [(name: String, indicator: Double, condition: String)]
        /// The envelope's band in the last window, Hz.
        public let band: [Double]

        public var passes: Bool { strongest == expected && abs(found / nominal - 1) <= 0.02 && margin >= 6 }
        /// The defect's indicator over the next order's, dB.
        public var margin: Double {
            let others = indicators.filter { $0.name != expected }.map(\.indicator).max() ?? 0
            return (indicators.first { $0.name == expected }?.indicator ?? 0) - others
        }
    }

    /// `recording` played through the daemon's core as `acceld replay
    /// RECORDING --axis x --part LSM6DSO --rate 6660 --range 16 --streams
    /// vibration` plays it, with the bearing configured as a user would
    /// (MFPT's geometry, the shaft its `#` lines give): the last window's
    /// orders.
    public static func bearing(_ recording: VibrationRecording, rate: Int = 6_660) throws -> BearingResult {
        guard let expected = recording.defect, let shaft = recording.shaft, let nominal = recording.faultFrequency(expected) else {
            throw DevelopmentData.DataError(message: "\(recording.path): no fault, shaft or fault frequency in its '#' lines")
        }
        let configuration = try Configuration(parsing: """
            [device]
            part = LSM6DSO
            rate = \(rate)
            range = 16
            [vibration]
            shaft = \(shaft)
            bearing = geometry 8 0.235 1.245
            """)
        let motion = try DeviceSource.motion(named: recording.path, axis: .x)
        let windows = try Replay(motion: motion, configuration: configuration).vibration(playback: TracePlayback(axis: .x))
        guard let last = windows.last else { throw DevelopmentData.DataError(message: "\(recording.path): shorter than a window") }
        let judged = last.orders.filter { $0.condition != nil }
        let strongest = judged.max { ($0.indicator ?? 0) < ($1.indicator ?? 0) }!
        return BearingResult(
            name: recording.name, expected: expected, nominal: nominal,
            strongest: strongest.name, found: (strongest.family.first ?? nil)?[0] ?? 0,
            indicators: judged.map { ($0.name, $0.indicator ?? 0, $0.condition ?? "") },
            band: last.envelopeBand
        )
    }
}
