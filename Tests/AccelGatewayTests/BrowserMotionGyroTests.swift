// SPDX-License-Identifier: Apache-2.0
import AccelCore
import AccelGateway
import AccelProtocol
import Foundation
import Testing

/// rotationRate and alpha on a part with a gyroscope (issue #28), against
/// the W3C DeviceOrientation definitions: rates about Z, X, Y as alpha,
/// beta, gamma in deg/s; the attitude as R = Rz(α)·Rx(β)·Ry(γ).
@Suite("The browser's motion events with a gyroscope")
struct BrowserMotionGyroTests {
    func decode(_ text: String) throws -> [String: Any] {
        try #require(JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any])
    }

    func degrees(_ r: Double) -> Double { r * 180 / .pi }
    func radians(_ d: Double) -> Double { d * .pi / 180 }

    /// The specification's attitude, built the way it defines it.
    func attitude(alpha: Double, beta: Double, gamma: Double) -> Quaternion {
        Quaternion(axis: Vector3(0, 0, 1), angle: radians(alpha)) * Quaternion(axis: Vector3(1, 0, 0), angle: radians(beta))
            * Quaternion(axis: Vector3(0, 1, 0), angle: radians(gamma))
    }

    @Test("rotation rate: rad/s about x, y, z become beta, gamma, alpha in deg/s")
    func rateMapping() throws {
        let rate = BrowserMotion.rotationRate(Vector3(0.1, -0.2, 0.5))
        #expect(abs(rate.beta - degrees(0.1)) < 1e-9)
        #expect(abs(rate.gamma - degrees(-0.2)) < 1e-9)
        #expect(abs(rate.alpha - degrees(0.5)) < 1e-9)
        let frame = FrameMessage(seq: 1, t: 1, acceleration: Vector3(0, 0, 1), gravity: Vector3(0, 0, 1), user: Vector3(0, 0, 0),
                                 quaternion: .identity, rotationRate: Vector3(0, 0, .pi / 2))
        let motion = try #require(try decode(BrowserMotion.message(for: frame, interval: 9.615))["motion"] as? [String: Any])
        let sent = try #require(motion["rotationRate"] as? [String: Double])
        #expect(sent["alpha"] == 90 && sent["beta"] == 0 && sent["gamma"] == 0)
    }

    @Test("a quarter turn counter-clockwise about the vertical, face up: alpha 90, beta = gamma = 0")
    func quarterTurn() {
        let q = Quaternion(axis: Vector3(0, 0, 1), angle: .pi / 2)
        let angles = BrowserMotion.angles(quaternion: q)
        #expect(abs(angles.alpha - 90) < 1e-9 && abs(angles.beta) < 1e-9 && abs(angles.gamma) < 1e-9)
        // A quarter turn clockwise is 270, inside [0, 360).
        #expect(abs(BrowserMotion.angles(quaternion: q.conjugate).alpha - 270) < 1e-9)
    }

    @Test("the docs' example frame: quaternion [0.96018, 0.25728, 0.02818, 0.10516] is alpha 12.5, beta 30, gamma 0")
    func protocolExample() {
        let angles = BrowserMotion.angles(quaternion: Quaternion(w: 0.96018, x: 0.25728, y: 0.02818, z: 0.10516))
        #expect(abs(angles.alpha - 12.5) < 0.01 && abs(angles.beta - 30) < 0.01 && abs(angles.gamma) < 0.01, "\(angles)")
    }

    @Test("alpha, beta, gamma round-trip through the specification's Z-X'-Y'' attitude, face down included",
          arguments: [(0.0, 0.0, 0.0), (12.5, 30.0, 0.0), (200.0, -45.0, 30.0), (350.0, 150.0, -60.0), (90.0, -170.0, 80.0), (45.0, 89.0, -89.0)])
    func roundTrip(alpha: Double, beta: Double, gamma: Double) {
        let angles = BrowserMotion.angles(quaternion: attitude(alpha: alpha, beta: beta, gamma: gamma))
        #expect(abs(angles.alpha - alpha) < 0.006 && abs(angles.beta - beta) < 1e-6 && abs(angles.gamma - gamma) < 1e-6, "\(angles)")
    }

    @Test("with a gyroscope the orientation event has alpha, and absolute stays false")
    func orientationWithAlpha() throws {
        let q = attitude(alpha: 120, beta: 10, gamma: -5)
        let frame = FrameMessage(seq: 1, t: 1, acceleration: q.up, gravity: q.up, user: Vector3(0, 0, 0), quaternion: q, rotationRate: Vector3(0, 0, 0))
        let orientation = try #require(try decode(BrowserMotion.message(for: frame, interval: 10))["orientation"] as? [String: Any])
        #expect(orientation["alpha"] as? Double == 120)
        #expect(orientation["beta"] as? Double == 10 && orientation["gamma"] as? Double == -5)
        #expect(orientation["absolute"] as? Bool == false)
    }

    @Test("without a gyroscope rotationRate and alpha stay null")
    func withoutGyroscope() throws {
        let frame = FrameMessage(seq: 1, t: 1, acceleration: Vector3(0, 0.5, 0.866), gravity: Vector3(0, 0.5, 0.866), user: Vector3(0, 0, 0), pitch: 30, roll: 0)
        let message = try decode(BrowserMotion.message(for: frame, interval: 10))
        #expect((message["motion"] as? [String: Any])?["rotationRate"] is NSNull)
        let orientation = try #require(message["orientation"] as? [String: Any])
        #expect(orientation["alpha"] is NSNull)
        #expect(abs((orientation["beta"] as? Double ?? 0) - 30) < 0.01)
    }
}
