// SPDX-License-Identifier: Apache-2.0
import AccelCore
import AccelDriver
import Foundation
import Testing
import TestSupport

/// accelctl record on a part with a gyroscope: the trace carries
/// wx,wy,wz (rad/s, docs/TRACE-FORMAT.md), read back by `Trace`.
@Suite("accelctl record with a gyroscope", .ownThread)
struct RecordRotationTests {
    /// The tour turns 90° in a second (π/2 rad/s) after each 2 s hold:
    /// a trace of 4 s holds a turn and a still moment.
    private func expectTourRates(_ file: String, tolerance: Double) throws {
        let trace = try Trace(contentsOf: file)
        let text = try String(contentsOfFile: file, encoding: .utf8)
        #expect(text.contains("\n" + Trace.rotationHeader + "\n"))
        let rates = try #require(trace.rotationRates)
        #expect(rates.count == trace.count && trace.count > 40)
        let speeds = rates.map(\.magnitude)
        #expect(abs(speeds.max()! - .pi / 2) < tolerance, "the tour turns at π/2 rad/s: \(speeds.max()!)")
        #expect(speeds.min()! < tolerance, "held still: \(speeds.min()!)")
    }

    @Test("record --direct from a simulated LSM6DSO on the tour writes wx,wy,wz near π/2 rad/s in the turn")
    func direct() throws {
        let file = scratchDirectory() + "/lsm6dso.csv"
        let record = try accelctl(["record", "--simulate", "tour", "--part", "LSM6DSO", "--seconds", "4", file])
        #expect(record.status == 0, "\(record.stderr)")
        // The chip model has no gyroscope offset unless asked: raw is true.
        try expectTourRates(file, tolerance: 0.05)
    }

    @Test("record from acceld on a simulated LSM6DSO writes the frames' rates, offset removed")
    func throughDaemon() throws {
        let daemon = try SocketDaemon(simulate: "tour", part: "LSM6DSO")
        let file = daemon.directory + "/lsm6dso.csv"
        let record = try accelctl(["record", "--socket", daemon.socketPath, "--seconds", "4", file])
        #expect(record.status == 0, "\(record.stderr)")
        // The daemon's model has 0.6 dps of offset and 0.03 dps of noise,
        // which the fusion removes only once it has learnt them.
        try expectTourRates(file, tolerance: 0.1)
    }

    @Test("a LIS3DH's trace keeps the four columns")
    func noGyroscope() throws {
        let file = scratchDirectory() + "/lis3dh.csv"
        let record = try accelctl(["record", "--simulate", "rest", "--part", "LIS3DH", "--seconds", "0.5", file])
        #expect(record.status == 0, "\(record.stderr)")
        let text = try String(contentsOfFile: file, encoding: .utf8)
        #expect(text.contains("\n" + Trace.header + "\n") && !text.contains("wx"))
        #expect(try Trace(contentsOf: file).rotationRates == nil)
    }
}
