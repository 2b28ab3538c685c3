// SPDX-License-Identifier: Apache-2.0
import AccelCore

/// The flat calibration's arithmetic: averages chip-axis readings with the
/// board flat (+Z up in the board's axes) and still, and takes their
/// difference from 1 g up as the offset. Refuses if the board moved.
struct FlatCalibration {
    enum Outcome: Equatable {
        case calibrated(Calibration)
        /// |a| varied by this much, g RMS.
        case moved(spread: Double)
    }

    /// Readings needed.
    let needed: Int
    /// Board +Z up, seen in the chip's axes.
    let up: Vector3
    let scale: Vector3
    private var sum = Vector3.zero
    private var sumSquares = 0.0
    private var count = 0

    /// Largest RMS variation of |a| that still counts as still, g.
    static let stillness = 0.05

    init(seconds: Double, rate: Int, mountMatrix matrix: MountMatrix, scale: Vector3) {
        needed = max(1, Int(seconds * Double(rate)))
        up = Vector3(matrix.rows.0.z, matrix.rows.1.z, matrix.rows.2.z)
        self.scale = scale
    }

    /// Adds a reading (g, chip axes); the outcome once enough were seen.
    mutating func add(_ g: Vector3) -> Outcome? {
        sum += g
        sumSquares += g.magnitude * g.magnitude
        count += 1
        guard count >= needed else { return nil }
        let mean = sum / Double(count)
        let spread = (max(sumSquares / Double(count) - mean.magnitude * mean.magnitude, 0)).squareRoot()
        guard spread < Self.stillness else { return .moved(spread: spread) }
        return .calibrated(Calibration(offset: mean - up, scale: scale))
    }
}
