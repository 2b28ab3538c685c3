// SPDX-License-Identifier: Apache-2.0
import AccelCore

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// UIDeviceOrientation's six states, the board's axes playing the phone's.
public enum DeviceOrientation: String, Sendable, CaseIterable {
    case unknown
    /// +Y up.
    case portrait
    /// −Y up.
    case portraitUpsideDown
    /// +X up.
    case landscapeLeft
    /// −X up.
    case landscapeRight
    /// +Z up.
    case faceUp
    /// −Z up.
    case faceDown

    /// The unit vector that points up in this state.
    public var up: Vector3? {
        switch self {
        case .unknown: nil
        case .portrait: Vector3(0, 1, 0)
        case .portraitUpsideDown: Vector3(0, -1, 0)
        case .landscapeLeft: Vector3(1, 0, 0)
        case .landscapeRight: Vector3(-1, 0, 0)
        case .faceUp: Vector3(0, 0, 1)
        case .faceDown: Vector3(0, 0, -1)
        }
    }

    static let faces: [DeviceOrientation] = [.portrait, .portraitUpsideDown, .landscapeLeft, .landscapeRight, .faceUp, .faceDown]
}

/// Decides the orientation from the gravity estimate, as Android's
/// orientation listener does: a tilt limit, a dead zone between neighbours,
/// no decision while the board is accelerated, and a settle time.
public struct OrientationDetector: Sendable {
    public struct Change: Sendable, Equatable {
        public let t: Double
        public let orientation: DeviceOrientation
        public let previous: DeviceOrientation

        public init(t: Double, orientation: DeviceOrientation, previous: DeviceOrientation) {
            self.t = t
            self.orientation = orientation
            self.previous = previous
        }
    }

    public var settings: OrientationSettings
    public private(set) var current = DeviceOrientation.unknown
    private var candidate = DeviceOrientation.unknown
    private var candidateSince = 0.0

    public init(settings: OrientationSettings = OrientationSettings()) { self.settings = settings }

    /// - Parameters:
    ///   - gravity: the low-passed specific force (direction matters).
    ///   - magnitude: |a| of the raw sample, for the acceleration gate.
    ///   - sample: the raw sample, for the agreement gate (none: no gate).
    public mutating func process(gravity: Vector3, magnitude: Double, sample: Vector3? = nil, t: Double) -> Change? {
        var proposal = propose(gravity: gravity, magnitude: magnitude)
        // A board at rest feels its gravity: while the sample points well
        // away from the estimate, the estimate is still catching up with a
        // swing (a chop), and nothing is decided.
        // (Compared as cosines: no acos per sample.)
        if proposal != nil, let sample,
           sample.dot(gravity) < sample.magnitude * gravity.magnitude * cos(settings.agreementDegrees * .pi / 180) {
            proposal = nil
        }
        guard let proposal, proposal != current else {
            candidate = .unknown
            return nil
        }
        if proposal != candidate {
            candidate = proposal
            candidateSince = t
        }
        guard t - candidateSince >= settings.settleSeconds - 1e-9 else { return nil }
        let change = Change(t: t, orientation: proposal, previous: current)
        current = proposal
        candidate = .unknown
        return change
    }

    /// The face the board shows now, or nil for "no decision".
    func propose(gravity: Vector3, magnitude: Double) -> DeviceOrientation? {
        guard abs(magnitude - 1) <= settings.magnitudeTolerance, gravity.magnitude > 0 else { return nil }
        let direction = gravity.normalized
        var best = DeviceOrientation.faceUp
        var bestCosine = -2.0
        for face in DeviceOrientation.faces {
            let cosine = direction.dot(face.up!)
            if cosine > bestCosine {
                best = face
                bestCosine = cosine
            }
        }
        let bestAngle = degrees(acos(min(bestCosine, 1)))
        guard bestAngle <= settings.tiltLimitDegrees else { return nil }
        guard let currentUp = current.up, best != current else { return best }
        let currentAngle = degrees(acos(min(max(direction.dot(currentUp), -1), 1)))
        return currentAngle - bestAngle > settings.deadZoneDegrees ? best : current
    }
}

func degrees(_ radians: Double) -> Double { radians * 180 / .pi }
