// SPDX-License-Identifier: Apache-2.0
import AccelProtocol
import Testing

@testable import AccelROS2

struct DiagnosticsReportTests {
    private let header = ROS2Header(stamp: ROS2Time(unixNanoseconds: 0), frameID: "")

    private func status(lost: Int, state: String = "ok") -> StatusReport {
        var counters = SamplerCounters()
        counters.lost = lost
        counters.published = 400
        let device = DeviceInfo(chip: "LSM6DSO", location: "/dev/i2c-1 at 0x6a", range: 4, rate: 416, mode: "high-performance",
                                resolution: 16, state: state, message: state == "ok" ? nil : "the chip stopped answering")
        return StatusReport(uptime: 1, clients: 1, counters: counters, device: device)
    }

    @Test func levelsFollowTheDeviceAndTheLosses() {
        var report = DiagnosticsReport()
        let ok = report.message(status: status(lost: 0), framesSinceLast: 416, header: header).status[0]
        #expect(ok.level == .ok && ok.message == "416 Hz, ±4 g" && ok.hardwareID == "LSM6DSO at /dev/i2c-1 at 0x6a")
        #expect(ok.values.first { $0.key == "lost" }?.value == "0")
        let lossy = report.message(status: status(lost: 3), framesSinceLast: 413, header: header).status[0]
        #expect(lossy.level == .warn && lossy.message.hasPrefix("3 samples lost"))
        // The same total a second later: nothing new lost.
        #expect(report.message(status: status(lost: 3), framesSinceLast: 416, header: header).status[0].level == .ok)
        #expect(report.message(status: status(lost: 3), framesSinceLast: 0, header: header).status[0].level == .stale)
        let lost = report.message(status: status(lost: 3, state: "lost"), framesSinceLast: 0, header: header).status[0]
        #expect(lost.level == .error && lost.message == "the chip stopped answering")
    }
}
