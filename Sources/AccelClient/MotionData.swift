// SPDX-License-Identifier: Apache-2.0
import AccelCore
import AccelMotion
import AccelProtocol

/// The names a program uses, without importing the modules they live in.
public typealias Attitude = AccelMotion.Attitude
public typealias MotionEvent = AccelMotion.MotionEvent
public typealias DeviceOrientation = AccelMotion.DeviceOrientation
public typealias DeviceInfo = AccelProtocol.DeviceInfo
public typealias Vector3 = AccelCore.Vector3

/// Acceleration in g along the board's axes (CMAcceleration): +1 g on the
/// axis that points up at rest, as acceld reports it.
public struct Acceleration: Sendable, Equatable {
    public var x: Double
    public var y: Double
    public var z: Double
    public init(x: Double, y: Double, z: Double) {
        self.x = x
        self.y = y
        self.z = z
    }
    init(_ v: Vector3) { self.init(x: v.x, y: v.y, z: v.z) }
}

/// One accelerometer sample (CMAccelerometerData).
public struct AccelerometerData: Sendable, Equatable {
    public var acceleration: Acceleration
    /// Seconds on the daemon's CLOCK_MONOTONIC, the sample's instant.
    public var timestamp: Double
    /// The chip's sample number: gaps are samples lost.
    public var sequence: UInt64
}

/// The gyroscope's rate about the board's x, y and z axes, rad/s,
/// right-handed, its offset removed (CMRotationRate).
public struct RotationRate: Sendable, Equatable {
    public var x: Double
    public var y: Double
    public var z: Double
    public init(x: Double, y: Double, z: Double) {
        self.x = x
        self.y = y
        self.z = z
    }
    init(_ v: Vector3) { self.init(x: v.x, y: v.y, z: v.z) }
}

/// Gravity and user acceleration split, and the attitude (CMDeviceMotion).
/// With a gyroscope (`MotionManager.isGyroAvailable`) they are fused and
/// `rotationRate` is its rate; without one, `attitude` is pitch and roll
/// from gravity, yaw 0, and `rotationRate` is zero.
public struct DeviceMotion: Sendable, Equatable {
    public var gravity: Acceleration
    public var userAcceleration: Acceleration
    /// Relative to the reference attitude when one is set; yaw with a gyroscope.
    public var attitude: Attitude
    public var rotationRate: RotationRate
    public var timestamp: Double
    public var sequence: UInt64
}

extension Attitude {
    /// Core Motion's multiply(byInverseOf:): this attitude, seen from
    /// `reference` (level, and heading 0, at the reference).
    public mutating func multiply(byInverseOf reference: Attitude) {
        self = relative(to: reference)
    }
}

/// The kinds of event a program can ask for.
public enum MotionEventKind: String, Sendable, CaseIterable {
    case orientation, shake, freefall, movement, tap

    var stream: StreamName { StreamName(rawValue: rawValue)! }
}

/// What happened to the connection, for programs that care.
public enum ConnectionNotice: Sendable, Equatable {
    /// Samples the chip made that never reached this program (a gap in
    /// the sequence: overrun, bus fault, or this program reading slowly).
    case lostSamples(Int)
    /// The daemon went away (stopped, restarted, crashed); reconnection
    /// with back-off follows.
    case disconnected(reason: String)
    /// Connected again, after this many seconds without data.
    case reconnected(after: Double)
    /// The device's state changed (`lost`, `back`, `configured`, ...).
    case device(DeviceInfo)
}

/// One gyroscope sample (CMGyroData): the rate about the board's x, y and
/// z axes, rad/s, right-handed. Unlike CMGyroData, which is the raw
/// gyroscope, this is the rate with the offset acceld's fusion has learnt
/// removed (what CMDeviceMotion.rotationRate gives): acceld's frames carry
/// only that rate (docs/PROTOCOL.md), and a raw one would drift by the
/// part's zero-rate level (±1 dps on the LSM6DSO) for every program to fix.
public struct GyroData: Sendable, Equatable {
    public var rotationRate: RotationRate
    /// Seconds on the daemon's CLOCK_MONOTONIC, the sample's instant.
    public var timestamp: Double
    /// The chip's sample number: gaps are samples lost.
    public var sequence: UInt64
}
