// SPDX-License-Identifier: Apache-2.0
import AccelClient
import Dispatch
import Foundation
import Testing
import TestSupport

/// startGyroUpdates and the rest, as Core Motion names them, against a
/// fake acceld that serves a six-axis part and one that serves a LIS302DL.
@Suite("AccelClient's gyroscope updates", .timeLimit(.minutes(1)))
struct GyroUpdatesTests {
    private static func frames(_ count: Int) -> [String] {
        (1...count).map { #"{"class":"frame","seq":\#($0),"t":\#(Double($0) / 104),"acc":[0,0,1],"rotationRate":[0.1,-0.2,\#(Double($0) / 100)]}"# }
    }
    private let sixAxis = #"{"class":"hello","protocol":2,"version":"0.2.0","device":{"chip":"LSM6DSO","location":"fake","range":2,"rate":104,"mode":"high-performance","resolution":16,"gyroscope":2000,"state":"ok"}}"#
    private let threeAxis = #"{"class":"hello","protocol":2,"version":"0.2.0","device":{"chip":"LIS302DL","location":"fake","range":2,"rate":100,"mode":"normal","resolution":8,"state":"ok"}}"#

    @Test("push: every frame's rotation rate, in rad/s, in order, with its time and sequence; stop stops")
    func push() throws {
        let fake = try FakeDaemon(lines: [sixAxis] + Self.frames(5))
        defer { fake.stop() }
        let manager = MotionManager(socketPath: fake.path)
        #expect(manager.isGyroAvailable && !manager.isGyroActive)
        manager.gyroUpdateInterval = 0
        let received = Collected<GyroData>(), errors = Collected<String>()
        manager.startGyroUpdates(to: DispatchQueue(label: "gyro")) { data, error in
            if let data { received.add(data) }
            if let error { errors.add("\(error)") }
        }
        #expect(manager.isGyroActive)
        let data = received.wait { $0.count >= 5 }
        #expect(data.map(\.sequence) == [1, 2, 3, 4, 5])
        #expect(data.last?.rotationRate == RotationRate(x: 0.1, y: -0.2, z: 0.05))
        #expect(abs((data.last?.timestamp ?? 0) - 5.0 / 104) < 1e-9)
        #expect(errors.all.isEmpty)
        manager.stopGyroUpdates()
        #expect(!manager.isGyroActive)
    }

    @Test("pull: gyroData is the latest sample while updates run")
    func pull() throws {
        let fake = try FakeDaemon(lines: [sixAxis] + Self.frames(3))
        defer { fake.stop() }
        let manager = MotionManager(socketPath: fake.path)
        #expect(manager.gyroData == nil)
        manager.startGyroUpdates()
        let end = Date().addingTimeInterval(5)
        while Date() < end, manager.gyroData?.sequence != 3 { usleep(10_000) }
        #expect(manager.gyroData?.rotationRate == RotationRate(x: 0.1, y: -0.2, z: 0.03))
        manager.stopGyroUpdates()
    }

    @Test("a part without a gyroscope: isGyroAvailable is false, and the handler gets (nil, noGyroscope)")
    func noGyroscope() throws {
        let fake = try FakeDaemon(lines: [threeAxis] + [#"{"class":"frame","seq":1,"t":0.01,"acc":[0,0,1]}"#])
        defer { fake.stop() }
        let manager = MotionManager(socketPath: fake.path)
        #expect(!manager.isGyroAvailable)
        let received = Collected<GyroData>(), errors = Collected<ClientError>()
        manager.startGyroUpdates(to: DispatchQueue(label: "gyro")) { data, error in
            if let data { received.add(data) }
            if let error = error as? ClientError { errors.add(error) }
        }
        #expect(errors.wait { !$0.isEmpty }.first == .noGyroscope("LIS302DL"))
        // A second start on the connection already there says it too.
        let again = Collected<ClientError>()
        manager.startGyroUpdates(to: DispatchQueue(label: "gyro")) { _, error in if let error = error as? ClientError { again.add(error) } }
        #expect(again.wait { !$0.isEmpty } == [.noGyroscope("LIS302DL")])
        #expect(received.all.isEmpty && manager.gyroData == nil)
        manager.stopGyroUpdates()
    }
}

@Suite("AccelClient's gyroscope on the chip model", .ownThread)
struct GyroUpdatesDaemonTests {
    @Test("an LSM6DSO on the tour: gyroscope updates see its 90°/s turn")
    func tour() throws {
        let daemon = try SocketDaemon(simulate: "tour", part: "LSM6DSO")
        defer { daemon.stop() }
        let manager = MotionManager(socketPath: daemon.socketPath)
        #expect(manager.isGyroAvailable)
        let speeds = Collected<Double>()
        manager.startGyroUpdates(to: DispatchQueue(label: "gyro")) { data, _ in
            if let r = data?.rotationRate { speeds.add((r.x * r.x + r.y * r.y + r.z * r.z).squareRoot()) }
        }
        let seen = speeds.wait(seconds: 8) { ($0.max() ?? 0) > 1.5 }
        #expect(abs((seen.max() ?? 0) - .pi / 2) < 0.1, "the tour turns at π/2 rad/s: \(seen.max() ?? 0)")
        manager.stopGyroUpdates()
    }
}
