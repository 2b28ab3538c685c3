// SPDX-License-Identifier: Apache-2.0
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A rolling bearing's four defect frequencies as multiples of the shaft's
/// (orders): outer race (BPFO), inner race (BPFI), rolling element spin
/// (BSF) and cage (FTF). From the bearing's datasheet, or from its geometry.
public struct BearingFactors: Sendable, Equatable {
    public var bpfo: Double
    public var bpfi: Double
    public var bsf: Double
    public var ftf: Double

    public init(bpfo: Double, bpfi: Double, bsf: Double, ftf: Double) {
        self.bpfo = bpfo
        self.bpfi = bpfi
        self.bsf = bsf
        self.ftf = ftf
    }

    /// The textbook kinematics for `elements` rolling elements of diameter
    /// `rollerDiameter` on a pitch circle of `pitchDiameter` (any one
    /// unit), at `contactAngle` degrees, the outer race still:
    /// BPFO = n/2 (1 − d/D cos φ), BPFI = n/2 (1 + d/D cos φ),
    /// BSF = D/(2d) (1 − (d/D cos φ)²), FTF = ½ (1 − d/D cos φ).
    public init(elements: Int, rollerDiameter: Double, pitchDiameter: Double, contactAngle: Double = 0) {
        let ratio = rollerDiameter / pitchDiameter * cos(contactAngle * .pi / 180)
        let half = Double(elements) / 2
        self.init(
            bpfo: half * (1 - ratio),
            bpfi: half * (1 + ratio),
            bsf: pitchDiameter / (2 * rollerDiameter) * (1 - ratio * ratio),
            ftf: 0.5 * (1 - ratio)
        )
    }

    /// Each defect's name and order.
    public var named: [(name: String, order: Double)] {
        [("bpfo", bpfo), ("bpfi", bpfi), ("bsf", bsf), ("ftf", ftf)]
    }
}
