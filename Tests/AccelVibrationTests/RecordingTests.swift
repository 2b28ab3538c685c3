// SPDX-License-Identifier: Apache-2.0
import AccelCore
import AccelEvaluation
import Foundation
import Testing
@testable import AccelVibration

/// ../shared/data/vibration beside the checkout (CI clones main next to shared/).
let vibrationData: String = {
    var parts = #filePath.split(separator: "/").map(String.init)
    parts.removeLast(3)  // Tests/AccelVibrationTests/RecordingTests.swift
    return "/" + (parts + ["..", "shared", "data", "vibration"]).joined(separator: "/")
}()

@Suite("Real recordings")
struct RecordingTests {
    @Test("MFPT's bearing records through acceld replay on an LSM6DSO at 6,660 Hz: the record's own defect family stands highest over the averaged envelope's floor, 6 dB clear of the next order's, its 1× line within 2 %, its condition alarm",
          arguments: ["mfpt_inner_race_0lbs", "mfpt_inner_race_100lbs", "mfpt_inner_race_200lbs", "mfpt_inner_race_300lbs",
                      "mfpt_outer_race_25lbs", "mfpt_outer_race_100lbs", "mfpt_outer_race_200lbs", "mfpt_outer_race_300lbs"])
    func bearing(name: String) throws {
        let result = try VibrationEvaluation.bearing(VibrationRecording(path: "\(vibrationData)/\(name).csv"))
        #expect(result.strongest == result.expected)
        #expect(result.margin >= 6, "\(result.indicators)")
        #expect(abs(result.found / result.nominal - 1) <= 0.02)
        #expect(result.indicators.first { $0.name == result.expected }?.condition == "alarm")
        #expect(result.indicators.filter { $0.name != result.expected }.allSatisfy { $0.condition == "ok" }, "no order the bearing does not have is raised: \(result.indicators)")
    }

    @Test("the unbalanced motor through acceld replay at 3,330 Hz: its dominant line within half a bin of 121.59 Hz, the shaft's family at 1×, 2× and 3×")
    func motor() throws {
        let motor = try VibrationRecording(path: "\(vibrationData)/vibrationdaq_unbalanced_motor.csv")
        #expect(motor.rate == 3_437.5 && motor.axes.count == 3)
        let window = try VibrationEvaluation.motor(motor.path)
        #expect(abs(window.peaks[0][0] - 121.59) <= 0.5 / window.duration, "\(window.peaks[0]) in a \(window.duration) s window")
        let shaft = try #require(window.orders.first { $0.name == "shaft" })
        #expect(shaft.family.map { $0.map { ($0[0] / 121.59).rounded() } } == [1, 2, 3], "\(shaft.family)")
    }

    @Test("a recording's rate, fault and shaft come from its own '#' lines; a file without them is refused by name")
    func header() throws {
        let recording = try VibrationRecording(path: "\(vibrationData)/mfpt_outer_race_100lbs.csv")
        #expect(recording.rate == 48_828 && recording.defect == "bpfo" && recording.shaft == 25 && recording.faultFrequency("bpfo") == 81.125)
        #expect(abs(recording.duration - 3) < 0.01)
        #expect(throws: (any Error).self) { try VibrationRecording(path: "\(vibrationData)/README.md") }
    }
}
