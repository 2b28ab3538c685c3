// SPDX-License-Identifier: Apache-2.0
import AccelCore

/// One processed sample: what a client subscribed to frames receives.
public struct Frame: Sendable, Equatable {
    public var seq: UInt64
    /// Seconds (the daemon's monotonic clock, or trace time in replay).
    public var t: Double
    /// Calibrated specific force, g.
    public var acceleration: Vector3
    /// Low-passed specific force, g (Core Motion's gravity, sign flipped:
    /// +1 g on the axis pointing up).
    public var gravity: Vector3
    /// acceleration − gravity, g.
    public var user: Vector3
    public var attitude: Attitude
    /// With a gyroscope: its rate, bias removed (rad/s), ...
    public var rotationRate: Vector3?
    /// ... the fused attitude (board axes into Z-up, X arbitrary), ...
    public var quaternion: Quaternion?
    /// ... and whether it saturated and the attitude is being recovered.
    public var gyroscopeRecovering = false

    public init(seq: UInt64, t: Double, acceleration: Vector3, gravity: Vector3, user: Vector3, attitude: Attitude,
                rotationRate: Vector3? = nil, quaternion: Quaternion? = nil, gyroscopeRecovering: Bool = false) {
        self.seq = seq
        self.t = t
        self.acceleration = acceleration
        self.gravity = gravity
        self.user = user
        self.attitude = attitude
        self.rotationRate = rotationRate
        self.quaternion = quaternion
        self.gyroscopeRecovering = gyroscopeRecovering
    }
}

/// Something a person would name: a turn to another face, a shake, a fall,
/// a push in one direction.
public enum MotionEvent: Sendable, Equatable {
    case orientation(OrientationDetector.Change)
    case shake(ShakeDetector.Event)
    case freeFall(FreeFallDetector.Event)
    case movement(MovementDetector.Movement)
    case tap(TapDetector.Tap)

    /// The wire protocol's `class` for the event.
    public var className: String {
        switch self {
        case .orientation: "orientation"
        case .shake: "shake"
        case .freeFall: "freefall"
        case .movement: "movement"
        case .tap: "tap"
        }
    }

    public var t: Double {
        switch self {
        case .orientation(let e): e.t
        case .shake(let e): e.t
        case .freeFall(let e): e.t
        case .movement(let e): e.t
        case .tap(let e): e.t
        }
    }

    public static let classNames = ["orientation", "shake", "freefall", "movement", "tap"]
}
