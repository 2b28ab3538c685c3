// SPDX-License-Identifier: Apache-2.0
import AccelCore
import AccelDriver
import AccelMotion
import AccelParts
import Dispatch

/// What clients ask of the chip, through the control side (call on `queue`).
extension Sampler {
    /// Changes range, rate and mode on the running chip (the FIFO
    /// watermark follows the new rate).
    public func reconfigure(to configuration: DeviceConfiguration) throws {
        assertOnLoop()
        guard let driver else { throw BusError.noAnswer(path: "the device", address: 0) }
        try wakeForRequest()
        var configuration = configuration
        configuration.interruptPin = self.configuration.interruptPin  // the wiring is not a client's to change
        _ = try driver.registerValues(for: configuration)  // validate before touching the chip
        try checkBus(configuration, driver: driver)
        configuration.fifoWatermark = fifoWatermark(rate: configuration.rate, driver: driver)
        self.configuration = configuration
        automaticRate = false  // a client's rate outlives a reconnection
        try reconfigure(.configured, "now ±\(configuration.range) g at \(configuration.rate) Hz")
    }

    /// Runs the datasheet self-test (sampling pauses for about 0.2 s), then
    /// restores the configuration.
    public func selfTest() throws -> SelfTestReport {
        assertOnLoop()
        guard let driver else { throw BusError.noAnswer(path: "the device", address: 0) }
        try wakeForRequest()
        let report = try driver.selfTest()
        try configureChip()
        return report
    }

    /// Runs the gyroscope's self-test on a six-axis part (nil on others;
    /// sampling pauses for about 0.4 s), then restores the configuration.
    public func gyroscopeSelfTest() throws -> GyroscopeSelfTestReport? {
        assertOnLoop()
        guard let driver else { throw BusError.noAnswer(path: "the device", address: 0) }
        guard driver.profile.gyroscope != nil else { return nil }
        try wakeForRequest()
        let report = try driver.gyroscopeSelfTest()
        try configureChip()
        return report
    }

    /// Collects chip-axis readings (uncalibrated g) until `collect`
    /// returns true; a sleeping chip is woken for it.
    func collect(_ collect: @escaping (Vector3) -> Bool) {
        try? wakeForRequest()
        install(collector: collect)
    }
}
