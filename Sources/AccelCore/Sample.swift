// SPDX-License-Identifier: Apache-2.0
/// Raw output digits per axis, in the chip's axes.
public struct Counts: Sendable, Equatable, Hashable {
    public var x: Int
    public var y: Int
    public var z: Int
    public init(_ x: Int, _ y: Int, _ z: Int) {
        self.x = x
        self.y = y
        self.z = z
    }
    public var vector: Vector3 { Vector3(Double(x), Double(y), Double(z)) }
}

/// A calibrated sample, as the sampler publishes it and the pipeline eats it.
public struct Sample: Sendable, Equatable {
    /// Sequence number; skips by exactly the number of samples lost.
    public var seq: UInt64
    /// Seconds on the daemon's monotonic clock (or the trace's clock in replay).
    public var t: Double
    public var counts: Counts
    /// Specific force in g, in the board's axes, calibrated.
    public var g: Vector3
    /// The gyroscope's rate in rad/s, board axes, right-handed, on parts
    /// that have one (nil otherwise).
    public var rotationRate: Vector3?

    public init(seq: UInt64, t: Double, counts: Counts, g: Vector3, rotationRate: Vector3? = nil) {
        self.seq = seq
        self.t = t
        self.counts = counts
        self.g = g
        self.rotationRate = rotationRate
    }
}
