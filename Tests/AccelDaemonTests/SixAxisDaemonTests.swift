// SPDX-License-Identifier: Apache-2.0
import AccelCore
@testable import AccelDaemon
@testable import AccelDriver
import AccelMotion
import AccelParts
import AccelProtocol
import Foundation
import Testing
import TestSupport

@Suite("The selftest reply's verdict")
struct SelfTestVerdictTests {
    @Test("it passes only when the accelerometer and the gyroscope both pass")
    func both() {
        let accelerometer = SelfTestReport(part: "LSM6DSO", range: 2, mode: "high-performance", axes: Axis.allCases.map {
            SelfTestReport.AxisResult(axis: $0, normal: 0, selfTest: 14_000, delta: 14_000, limits: 820...27_869, magnitudeOnly: true)
        })
        func gyroscope(y: Double) -> GyroscopeSelfTestReport {
            GyroscopeSelfTestReport(part: "LSM6DSO", range: 2000, axes: Axis.allCases.map {
                GyroscopeSelfTestReport.AxisResult(axis: $0, normal: 0, selfTest: $0 == .y ? y : 425, limits: 150...700)
            })
        }
        #expect(SelfTestReply(accelerometer, gyroscope: gyroscope(y: 425)).passed)
        let weak = SelfTestReply(accelerometer, gyroscope: gyroscope(y: 100))
        #expect(!weak.passed && weak.axes.allSatisfy(\.passed) && weak.gyroscope?.axes[1].passed == false)
        #expect(weak.gyroscope?.axes[1].diagnosis.contains("too little") == true)
        #expect(SelfTestReply(accelerometer, gyroscope: nil).passed && SelfTestReply(accelerometer, gyroscope: nil).gyroscope == nil)
    }
}


/// Issue #28's yaw target on the chip model: an LSM6DSO with its
/// datasheet's typical zero-rate level (±1 dps) and rate noise
/// (3.8 mdps/√Hz, 0.027 dps rms at 104 Hz), still on a table.
@Suite("The fusion on the chip model")
struct FusionOnChipModelTests {
    @Test("at rest with the datasheet's offset, yaw drifts under 1° a minute once the fusion has learnt it")
    func yawDrift() throws {
        let time = VirtualTime()
        var imperfections = ChipModel.Imperfections()
        imperfections.gyroscopeOffset = Vector3(1, -1, 1)
        imperfections.gyroscopeNoise = 0.0038 * (104.0 / 2).squareRoot()
        imperfections.noise = 0.0007
        let model = ChipModel(profile: .lsm6dso, motion: MotionScript(name: "table", segments: [.hold(Vector3(0, 0, 1), seconds: 1)]),
                              time: time, imperfections: imperfections)
        let driver = try Accelerometer(bus: model, time: time, part: .lsm6dso)
        try driver.configure(DeviceConfiguration(range: 2, rate: 104))
        var pipeline = MotionPipeline(gyroscopeRange: driver.rotationRange!)
        var events: [MotionEvent] = []
        var yaw: [Double] = []
        for seq in 0..<(104 * 120) {
            let reading = try driver.nextReading()
            let frame = pipeline.process(Sample(seq: UInt64(seq), t: time.seconds, counts: reading.counts, g: driver.acceleration(reading.counts),
                                                rotationRate: reading.rotation.flatMap(driver.rotationRate)), events: &events)
            yaw.append(frame.attitude.yaw * 180 / .pi)
        }
        let drift = yaw[yaw.count - 1] - yaw[104 * 60]
        print("yaw drift on the chip model in the second minute, with 1°/s of offset: \(drift)°; the first minute: \(yaw[104 * 60] - yaw[0])°")
        #expect(abs(drift) <= 1, "\(drift)° in the second minute")
    }
}
