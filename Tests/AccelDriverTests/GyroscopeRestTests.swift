// SPDX-License-Identifier: Apache-2.0
import Testing
import AccelCore
import AccelParts
@testable import AccelDriver

/// The gyroscope's offset at rest against the datasheet's zero-rate level.
@Suite("Six-axis parts: the gyroscope's offset at rest")
struct GyroscopeRestTests {
    func rest(_ profile: ChipProfile, offset: Vector3, motion: (any MotionSource)? = nil) throws -> GyroscopeRest {
        var imperfections = ChipModel.Imperfections()
        imperfections.gyroscopeOffset = offset
        imperfections.gyroscopeNoise = 0.03
        let (driver, _, _) = try partModel(profile, imperfections: imperfections, motion: motion)
        try driver.configure(driver.defaultConfiguration())
        return try #require(try driver.gyroscopeRest(seconds: 0.5))
    }

    @Test("an offset inside 3 × the typical zero-rate level is within; the mean is the offset to a few hundredths")
    func within() throws {
        let r = try rest(.lsm6dso, offset: Vector3(0.8, -1.5, 2.4))
        #expect(r.samples == 52 && !r.moved && r.within)
        #expect((r.mean - Vector3(0.8, -1.5, 2.4)).magnitude < 0.05, "\(r.mean)")
        #expect(r.verdict.hasPrefix("gyroscope offset at rest 0.8"), "\(r.verdict)")
        #expect(r.verdict.hasSuffix(" dps: within the datasheet's ±3 dps (3 × its typical zero-rate level, ±1 dps)"), "\(r.verdict)")
    }

    @Test("beyond the bound, per part: ±3, ±9 and ±30 dps", arguments: [
        (ChipProfile.lsm6dso, 4.0, "±3 dps"), (.lsm6dsl, 10.0, "±9 dps"), (.lsm6ds3, 31.0, "±30 dps"),
    ])
    func beyond(profile: ChipProfile, offset: Double, bound: String) throws {
        let r = try rest(profile, offset: Vector3(0, 0, -offset))
        #expect(!r.within && !r.moved)
        #expect(r.verdict.contains(": beyond the datasheet's \(bound)"), "\(r.verdict)")
        let inside = try rest(profile, offset: Vector3(0, 0, -offset * 0.6))
        #expect(inside.within, "\(inside.verdict)")
    }

    @Test("a board that starts turning while it is measured is not judged")
    func moved() throws {
        let turn = MotionScript(name: "turn", segments: [.hold(Vector3(0, 0, 1), seconds: 0.25),
                                                         .rotate(from: Vector3(0, 0, 1), to: Vector3(0, 1, 0), seconds: 1)])
        let r = try rest(.lsm6dso, offset: .zero, motion: turn)
        #expect(r.moved)
        #expect(r.verdict.contains("not judged, the board moved"), "\(r.verdict)")
    }
}
