// SPDX-License-Identifier: Apache-2.0
import AccelConfiguration
import AccelCore
@testable import AccelDaemon
import AccelDriver
import AccelMotion
import AccelParts
import Foundation
import Testing
import TestSupport

/// The gyroscope's offset at rest in the calibration file, and the fusion
/// starting from it.
@Suite("The calibration covers the gyroscope")
struct GyroscopeCalibrationTests {
    @Test("the file round-trips the gyroscope's offset; an older file without it reads as none; a malformed one is refused")
    func file() throws {
        let directory = scratchDirectory()
        let store = CalibrationStore(path: directory + "/calibration.json")
        let calibration = Calibration(offset: Vector3(0.01, -0.02, 0.03), scale: Vector3(1.01, 0.99, 1),
                                      gyroscopeOffset: Vector3(0.8125, -1.25, 0.0625))
        try store.save(calibration)
        #expect(try store.load() == calibration)
        #expect(try String(contentsOfFile: store.path, encoding: .utf8).contains(#""gyroscope-offset":[0.8125,-1.2500,0.0625]"#))

        let old = CalibrationStore(path: directory + "/old.json")
        try #"{"offset":[0.012,-0.008,0.018],"scale":[1,1,1]}"#.write(toFile: old.path, atomically: true, encoding: .utf8)
        let loaded = try #require(try old.load())
        #expect(loaded.gyroscopeOffset == nil && loaded.offset == Vector3(0.012, -0.008, 0.018))

        let bad = CalibrationStore(path: directory + "/bad.json")
        try #"{"offset":[0,0,0],"scale":[1,1,1],"gyroscope-offset":[1,2]}"#.write(toFile: bad.path, atomically: true, encoding: .utf8)
        #expect(throws: CalibrationStore.LoadError.self) { try bad.load() }
    }

    @Test("acceld's fusion starts from the stored offset, in the board's axes: yaw holds from the first second")
    func fusionStartsFromIt() throws {
        let time = VirtualTime()
        var imperfections = ChipModel.Imperfections()
        imperfections.gyroscopeOffset = Vector3(1, -1, 1.5)
        imperfections.gyroscopeNoise = 0.0038 * (104.0 / 2).squareRoot()
        imperfections.noise = 0.0007
        let model = ChipModel(profile: .lsm6dso, time: time, imperfections: imperfections)
        let sampler = Sampler(connect: { try Accelerometer(bus: model, time: time, part: .lsm6dso) },
                              configuration: DeviceConfiguration(range: 2, rate: 104), settings: MotionSettings(), time: time)
        try sampler.open()
        let driver = try #require(sampler.driver)
        // What accelctl calibrate stores: the mean at rest, chip axes, dps.
        let rest = try #require(try driver.gyroscopeRest(seconds: 1))
        let store = CalibrationStore(path: scratchDirectory() + "/calibration.json")
        try store.save(Calibration(gyroscopeOffset: rest.mean))
        sampler.mountMatrix = try MountMatrix(parsing: "0, 1, 0; -1, 0, 0; 0, 0, 1")
        sampler.calibration = try #require(try store.load())
        let expected = Vector3(-1, -1, 1.5) * (.pi / 180)  // chip (1, -1, 1.5) dps through the matrix
        #expect((sampler.publisher.pipeline.gyroscopeBias - expected).magnitude < 0.001 * .pi / 180 * 20, "\(sampler.publisher.pipeline.gyroscopeBias)")

        func yawOverFirstSecond(_ start: MotionPipeline) throws -> Double {
            var pipeline = start
            var events: [MotionEvent] = []
            var yaw: [Double] = []
            for seq in 0..<104 {
                let reading = try driver.nextReading()
                let frame = pipeline.process(Sample(seq: UInt64(seq), t: time.seconds, counts: reading.counts, g: driver.acceleration(reading.counts),
                                                    rotationRate: reading.rotation.flatMap(driver.rotationRate)), events: &events)
                yaw.append(frame.attitude.yaw * 180 / .pi)
            }
            return yaw[yaw.count - 1] - yaw[0]
        }
        let calibrated = try yawOverFirstSecond(sampler.publisher.pipeline)
        var uncalibrated = sampler.publisher.pipeline
        uncalibrated.gyroscopeBias = .zero
        let learning = try yawOverFirstSecond(uncalibrated)
        print("yaw in the first second: \(calibrated)° from the stored offset, \(learning)° learning it from zero")
        #expect(abs(calibrated) < 0.05, "\(calibrated)° in the first second")
        #expect(abs(learning) > 0.5, "without it the first second drifts by about the offset: \(learning)°")
    }
}
