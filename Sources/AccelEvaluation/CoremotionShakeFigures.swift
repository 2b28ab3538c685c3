// SPDX-License-Identifier: Apache-2.0
import AccelCore

/// Shakes and falls on one coremotion/ recording judged against Core
/// Motion's labels and user acceleration, by the regression table's rules
/// (docs/ALGORITHMS.md): a shake segment is found by a shake whose first
/// message comes from 1 s before it to its end, its delay runs from Core
/// Motion's first |user| of 1 g there; a shake outside the segments (±1 s)
/// is false in rest or drive rows only where Core Motion saw no 1 g around
/// its start (−0.5 to +1 s): the labels are a person's say-so, and in
/// u_03-shake the shaking goes on 6 s past the label at 110 s (Core
/// Motion's |user| 2-3.5 g until 117 s). Nobody dropped these phones:
/// every confirmed fall is false.
public struct CoremotionShakeFigures: Sendable {
    public var segments = 0
    public var segmentsFound = 0
    public var shakesInSegments = 0
    public var delays: [Double] = []
    public var falseShakesRestDrive = 0
    /// In rest or drive rows, but Core Motion measured shaking (past the label).
    public var shakesUnlabelled = 0
    public var shakesChopping = 0
    public var falls = 0
    public var withdrawnFalls = 0

    init(_ log: DetectorLog, truth: DevelopmentData.Truth) {
        self.init(shakes: log.shakes, truth: truth)
        falls = log.falls
        withdrawnFalls = log.withdrawnFalls
    }

    init(shakes: [Observation.Shake], truth: DevelopmentData.Truth) {
        let segments = truth.segments
        let vigorous = SignalEvaluation.vigorous, boundary = SignalEvaluation.boundary
        for s in segments where s.activity == .shake {
            let to = truth.index(at: s.end)
            let onset = (truth.index(at: s.start - boundary)...to).first { truth.user[$0].magnitude >= vigorous }.map { truth.times[$0] } ?? s.start
            let inside = shakes.filter { $0.firstMessage >= s.start - boundary && $0.start <= s.end }
            self.segments += 1
            shakesInSegments += inside.count
            if let first = inside.first {
                segmentsFound += 1
                delays.append(first.firstMessage - onset)
            }
        }
        for shake in shakes {
            let near = segments.contains { $0.activity == .shake && shake.start >= $0.start - boundary && shake.start <= $0.end + boundary }
            if near { continue }
            let from = truth.index(at: shake.start - 0.5), to = truth.index(at: shake.start + 1)
            let sawShaking = (from...to).contains { truth.user[$0].magnitude >= vigorous }
            switch truth.activity(at: shake.start) {
            case .rest, .drive:
                if sawShaking { shakesUnlabelled += 1 } else { falseShakesRestDrive += 1 }
            case .chop: shakesChopping += 1
            case .shake: break
            }
        }
    }
}
