// SPDX-License-Identifier: Apache-2.0
import Testing
import AccelCore
@testable import AccelDriver

@Suite("Trace format")
struct TraceTests {
    static let files = [
        "freefall/fall_1.csv", "freefall/fall_2.csv", "freefall/fall_3.csv", "freefall/fall_4.csv",
        "freefall/fall_5.csv", "freefall/fall_6.csv", "freefall/fall_7.csv", "freefall/fall_8.csv",
        "freefall/up_and_down_2.csv", "freefall/up_and_down_3.csv", "freefall/up_and_down_4.csv",
        "freefall/up_and_down_5.csv", "freefall/up_and_down_6.csv",
        "orientation/microstrain_xminus.csv", "orientation/microstrain_xplus.csv",
        "orientation/microstrain_yminus.csv", "orientation/microstrain_yplus.csv",
        "orientation/microstrain_zminus.csv", "orientation/microstrain_zplus.csv",
        "shake/physilog_two_shakes.csv",
    ]

    @Test("every shared recording parses, with its comments and a plausible rate", arguments: files)
    func sharedRecordingsParse(file: String) throws {
        let trace = try Trace(contentsOf: sharedData + "/" + file)
        #expect(trace.count > 100)
        #expect(trace.comments.contains { $0.hasPrefix("source:") })
        let hertz = 1 / trace.typicalInterval
        #expect(hertz > 25 && hertz < 1100, "\(hertz) Hz")
        let atRest = trace.samples[0].magnitude
        #expect(atRest > 0.8 && atRest < 1.2, "the recordings start near 1 g")
    }

    @Test("a trace's interval: 12 kHz written to the microsecond is 83.33 µs, not the median 83; a hole of two rows counts its periods")
    func interval() {
        let rounded = (0..<1200).map { (Double($0) / 12_000 * 1e6).rounded() / 1e6 }
        let trace = Trace(times: rounded, samples: rounded.map { _ in Vector3(0, 0, 1) })
        #expect(abs(1 / trace.typicalInterval - 12_000) < 1, "\(1 / trace.typicalInterval) Hz")
        var holed = (0..<100).map { Double($0) / 100 }
        holed.removeSubrange(40..<42)
        let withHole = Trace(times: holed, samples: holed.map { _ in Vector3(0, 0, 1) })
        #expect(abs(withHole.typicalInterval - 0.01) < 1e-12)
    }

    @Test("a one-axis trace: on the axis its header or the player names, the board lying flat (1 g on z); unnamed, refused")
    func oneAxis() throws {
        let named = try Trace(parsing: "t,z\n0,0.5\n0.1,-0.5\n")
        #expect(named.oneAxis == .z && named.samples == [Vector3(0, 0, 1.5), Vector3(0, 0, 0.5)])
        let played = try Trace(parsing: "t,a\n0,0.5\n0.1,-0.5\n", axis: .x)
        #expect(played.oneAxis == .x && played.samples == [Vector3(0.5, 0, 1), Vector3(-0.5, 0, 1)] && played.rotationRates == nil)
        #expect(throws: Trace.FormatError.self) { try Trace(parsing: "t,a\n0,0.5\n") }
        #expect(try Trace(parsing: "t,x,y,z\n0,0,0,1\n").oneAxis == nil)
    }

    @Test("malformed traces fail with the line number and what was wrong", arguments: [
        ("x,y,z\n0,0,0,1\n", 1, "expected the header"),
        ("# c\nt,x,y,z\n0,0,0,1\n0.1,0,0\n", 4, "found 3"),
        ("t,x,y,z\n0,0,0,1\n0.1,0,zero,1\n", 3, "column y is 'zero'"),
        ("t,x,y,z\n0,0,0,1\n0.1,0,0,1\n0.1,0,0,1\n", 4, "does not increase"),
        ("t,x,y,z\n0,0,nan,1\n", 2, "not a finite number"),
        ("# only a comment\n", 1, "no header"),
        ("t,x,y,z\n\n", 2, "no samples"),
        ("t,x,y,z,wx,wy,wz\n0,0,0,1,0,0,0\n0.1,0,0,1\n", 3, "expected 7 comma-separated values (t,x,y,z,wx,wy,wz), found 4"),
        ("t,x,y,z,wx,wy,wz\n0,0,0,1,0,fast,0\n", 2, "column wy is 'fast'"),
        ("t,x,y,z,wx\n0,0,0,1,0\n", 1, "expected the header"),
    ])
    func malformed(text: String, line: Int, reason: String) {
        let error = #expect(throws: Trace.FormatError.self) { try Trace(parsing: text, source: "bad.csv") }
        #expect(error?.line == line)
        #expect(error?.description.contains(reason) == true, "\(error?.description ?? "")")
        #expect(error?.description.hasPrefix("bad.csv:\(line):") == true)
    }

    @Test("a missing file is an error naming the path")
    func missingFile() {
        let error = #expect(throws: Trace.FormatError.self) { try Trace(contentsOf: "/nonexistent/trace.csv") }
        #expect(error?.description.contains("/nonexistent/trace.csv") == true)
    }

    @Test("writing then parsing gives the same trace")
    func roundTrip() throws {
        let trace = Trace(comments: ["made by a test"], times: [0, 0.0025, 0.005],
                          samples: [Vector3(0, 0, 1), Vector3(-0.25, 0.5, 0.98765), Vector3(1.5, -2, 0)])
        #expect(try Trace(parsing: trace.text) == trace)
        #expect(trace.text.contains("0.002500,-0.25000,0.50000,0.98765"))
    }

    @Test("a trace with rotation rates keeps them row for row, and writes them back")
    func rotationColumns() throws {
        let trace = try Trace(parsing: "# gyro\nt,x,y,z,wx,wy,wz\n0,0,0,1,0.1,-0.2,0.3\n0.01,0,0,1,0.000001,0,-3.5\n")
        #expect(trace.rotationRates == [Vector3(0.1, -0.2, 0.3), Vector3(0.000001, 0, -3.5)])
        #expect(trace.samples == [Vector3(0, 0, 1), Vector3(0, 0, 1)])
        #expect(trace.text.contains("t,x,y,z,wx,wy,wz\n0.000000,0.00000,0.00000,1.00000,0.100000,-0.200000,0.300000\n"))
        #expect(try Trace(parsing: trace.text) == trace)
        #expect(try Trace(parsing: "t,x,y,z\n0,0,0,1\n").rotationRates == nil, "an accelerometer's trace has none")
    }

    @Test("trace motion interpolates linearly and holds the ends")
    func interpolation() throws {
        let trace = try Trace(parsing: "t,x,y,z\n10,0,0,1\n10.1,1,0,0\n")
        let motion = TraceMotion(trace)
        #expect(motion.specificForce(at: -1) == Vector3(0, 0, 1))
        let mid = motion.specificForce(at: 0.05)
        #expect(abs(mid.x - 0.5) < 1e-9 && abs(mid.z - 0.5) < 1e-9)
        #expect(motion.specificForce(at: 5) == Vector3(1, 0, 0))
        #expect(motion.specificForce(at: 0.025).x < 0.26, "going back in time still works")
    }
}

@Suite("Built-in motion scripts")
struct MotionScriptTests {
    @Test("the tour visits all six faces with 90° turns and keeps |g| = 1")
    func tour() {
        let tour = MotionScript.tour()
        let faces = stride(from: 1.0, to: tour.duration, by: 3).map { tour.specificForce(at: $0) }
        #expect(Set(faces) == Set(MotionScript.up.values))
        for t in stride(from: 0.0, to: tour.duration, by: 0.1) {
            #expect(abs(tour.specificForce(at: t).magnitude - 1) < 1e-9)
        }
    }

    @Test("the drop has 0.5 s of zero g, and every script name resolves", arguments: MotionScript.names)
    func named(name: String) throws {
        let script = try #require(MotionScript.named(name))
        #expect(script.name == name)
        if name == "drop" {
            #expect(script.specificForce(at: 1.25) == .zero)
            #expect(script.specificForce(at: 0.9) == Vector3(0, 0, 1))
        }
    }
}
