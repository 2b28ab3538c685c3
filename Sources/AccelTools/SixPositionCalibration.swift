// SPDX-License-Identifier: Apache-2.0
import AccelCore
import AccelDriver

#if canImport(Glibc)
import Glibc
#endif

/// The classic six-position calibration, as a state machine fed with raw
/// chip-axis readings: each face of the board is put up in turn (in any
/// order), held still, and averaged; per chip axis, the +1 g and −1 g
/// averages give offset = (r₊ + r₋)/2 and scale = 2/(r₊ − r₋). `flat` uses
/// the +Z face alone and measures offsets only.
public struct SixPositionCalibration: Sendable {
    /// A face of the board, named by the board axis that points up.
    public enum Face: String, Sendable, CaseIterable {
        case zPlus = "+Z", zMinus = "-Z", yPlus = "+Y", yMinus = "-Y", xPlus = "+X", xMinus = "-X"

        public var up: Vector3 {
            switch self {
            case .zPlus: Vector3(0, 0, 1)
            case .zMinus: Vector3(0, 0, -1)
            case .yPlus: Vector3(0, 1, 0)
            case .yMinus: Vector3(0, -1, 0)
            case .xPlus: Vector3(1, 0, 0)
            case .xMinus: Vector3(-1, 0, 0)
            }
        }

        /// The orientation name a person knows from phones.
        public var orientation: String {
            switch self {
            case .zPlus: "faceUp"
            case .zMinus: "faceDown"
            case .yPlus: "portrait"
            case .yMinus: "portraitUpsideDown"
            case .xPlus: "landscapeLeft"
            case .xMinus: "landscapeRight"
            }
        }
    }

    public enum Status: Sendable, Equatable {
        /// Waiting for a still board on a face still to measure; `stillness`
        /// runs from 0 to 1 as it settles.
        case waiting(face: Face?, stillness: Double)
        /// Averaging `face`; `progress` from 0 to 1.
        case measuring(face: Face, progress: Double)
        /// `face` is done.
        case measured(face: Face)
        case done
    }

    public let mountMatrix: MountMatrix
    public let faces: [Face]
    public var stillSeconds = 0.5
    public var averageSeconds = 1.0
    /// RMS deviation of the acceleration vector from its mean allowed for
    /// "still", g: noise (a few tens of mg) passes, a hand turning or
    /// shaking the board does not.
    public var stillTolerance = 0.05
    /// Largest angle between gravity and a face's axis to count as that face.
    public var angleTolerance = 20.0
    public private(set) var measurements: [Face: Vector3] = [:]

    private var recent: [(t: Double, a: Vector3)] = []
    private var measuring: (face: Face, since: Double, sum: Vector3, count: Int)?

    public init(mountMatrix: MountMatrix = .identity, flat: Bool = false) {
        self.mountMatrix = mountMatrix
        self.faces = flat ? [.zPlus] : Face.allCases
    }

    public var remaining: [Face] { faces.filter { measurements[$0] == nil } }
    public var isDone: Bool { remaining.isEmpty }

    /// Feeds one raw reading (g, chip axes, uncalibrated) taken at `t` seconds.
    public mutating func add(chip: Vector3, t: Double) -> Status {
        guard !isDone else { return .done }
        let board = mountMatrix.apply(chip)
        let magnitude = board.magnitude
        recent.append((t, board))
        while let first = recent.first, t - first.t > stillSeconds { recent.removeFirst() }
        let mean = recent.map(\.a).reduce(Vector3.zero, +) / Double(recent.count)
        let spread = (recent.map { ($0.a - mean).dot($0.a - mean) }.reduce(0, +) / Double(recent.count)).squareRoot()
        let covered = recent.count > 1 ? (recent.last!.t - recent.first!.t) / stillSeconds : 0
        let still = spread < stillTolerance && abs(magnitude - 1) < 0.15
        let face = remaining.first { angle(board, $0.up) <= angleTolerance }

        if var current = measuring {
            guard still, face == current.face else {
                measuring = nil
                return .waiting(face: face, stillness: 0)
            }
            current.sum += chip
            current.count += 1
            measuring = current
            let progress = (t - current.since) / averageSeconds
            guard progress >= 1 else { return .measuring(face: current.face, progress: progress) }
            measurements[current.face] = current.sum / Double(current.count)
            measuring = nil
            recent.removeAll()
            return isDone ? .done : .measured(face: current.face)
        }
        guard let face, still, covered >= 0.95 else {
            return .waiting(face: face, stillness: still ? min(covered, 1) : max(0, 1 - spread / stillTolerance) * 0.5 * covered)
        }
        measuring = (face, t, chip, 1)
        return .measuring(face: face, progress: 0)
    }

    private func angle(_ a: Vector3, _ b: Vector3) -> Double {
        acos(min(max(a.normalized.dot(b), -1), 1)) * 180 / .pi
    }

    /// Board "up" seen in the chip's axes: Mᵀ·u.
    private func chipUp(_ face: Face) -> Vector3 {
        let r = mountMatrix.rows, u = face.up
        return Vector3(r.0.x * u.x + r.1.x * u.y + r.2.x * u.z,
                       r.0.y * u.x + r.1.y * u.y + r.2.y * u.z,
                       r.0.z * u.x + r.1.z * u.y + r.2.z * u.z)
    }

    /// The calibration, and for each measured face how far (mg) the
    /// calibrated average lands from exactly 1 g up.
    public func result() -> (calibration: Calibration, residuals: [(Face, Double)]) {
        var offset = Vector3.zero, scale = Vector3(1, 1, 1)
        for axis in Axis.allCases {
            let plus = measurements.first { chipUp($0.key)[axis] > 0.5 }?.value[axis]
            let minus = measurements.first { chipUp($0.key)[axis] < -0.5 }?.value[axis]
            if let plus, let minus {
                offset[axis] = (plus + minus) / 2
                scale[axis] = 2 / (plus - minus)
            } else if let (face, value) = measurements.first(where: { abs(chipUp($0.key)[axis]) > 0.5 }) {
                offset[axis] = value[axis] - chipUp(face)[axis]
            } else if let (face, value) = measurements.first {
                offset[axis] = value[axis] - chipUp(face)[axis]  // this axis was level: it should read 0
            }
        }
        let calibration = Calibration(offset: offset, scale: scale)
        let residuals = faces.compactMap { face in
            measurements[face].map { (face, (calibration.apply($0) - chipUp(face)).magnitude * 1000) }
        }
        return (calibration, residuals)
    }
}
