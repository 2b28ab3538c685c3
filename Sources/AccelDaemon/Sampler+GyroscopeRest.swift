// SPDX-License-Identifier: Apache-2.0
import AccelCore
import AccelDriver
import Logging

extension Sampler {
    /// How long the gyroscope is read at start: a few dozen samples at
    /// 104 Hz put the mean within a hundredth of a dps of the offset,
    /// against a bound of 3 dps and more.
    static let gyroscopeRestSeconds = 0.25

    /// On a six-axis part, before the first sample is served: the
    /// gyroscope's offset at rest, with a warning in the log when it is
    /// beyond 3 × the datasheet's typical zero-rate level (`accelctl probe`
    /// says the same). Run on the sampler's queue after `open`, it delays
    /// the first frame by a quarter second but not the socket, which
    /// already listens; the sampler's own first samples would come with
    /// the fusion's bias already subtracted. A board moving at start is
    /// not judged. Nil without a gyroscope or a chip.
    @discardableResult
    public func checkGyroscopeAtRest() -> GyroscopeRest? {
        assertOnLoop()
        guard let driver, driver.profile.gyroscope != nil else { return nil }
        let rest: GyroscopeRest?
        do { rest = try driver.gyroscopeRest(seconds: Self.gyroscopeRestSeconds) } catch {
            logger.info("the gyroscope's offset at rest was not measured at start: \(error)")
            return nil
        }
        guard let rest else { return nil }
        if rest.moved {
            logger.info("\(rest.verdict)")
        } else if !rest.within {
            logger.warning("\(driver.profile.name): \(rest.verdict): the part may be damaged or stressed; the fusion learns the offset at rest, but a turn is misread until it has")
        }
        return rest
    }

    /// The fusion's offset estimate starts from the calibration's (chip
    /// axes, dps) turned into the board's axes in rad/s, as the rates are.
    func startGyroscopeBias() {
        publisher.pipeline.gyroscopeBias = calibration.gyroscopeOffset.map { mountMatrix.apply($0 * (.pi / 180)) } ?? .zero
    }
}
