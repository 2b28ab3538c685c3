// SPDX-License-Identifier: Apache-2.0
import Dispatch

public typealias GyroHandler = @Sendable (GyroData?, (any Error)?) -> Void

/// Core Motion's gyroscope updates (startGyroUpdates and the rest), on
/// the same connection as everything else a manager is asked for. On a
/// part without a gyroscope `isGyroAvailable` is false, and a push
/// handler gets `(nil, ClientError.noGyroscope)` once a connection, as
/// the other handlers get the errors that stop their updates.
extension MotionManager {
    public var isGyroActive: Bool { isActive(.gyro) }

    /// Seconds between gyroscope updates; served by acceld at the nearest
    /// rate the chip's divides into.
    public var gyroUpdateInterval: Double {
        get { interval(of: .gyro) }
        set { setInterval(newValue, of: .gyro) }
    }

    /// The latest gyroscope sample, while gyroscope updates run (pull);
    /// nil on a part without one.
    public var gyroData: GyroData? { latest(GyroData.self) }

    /// Starts updates without a handler: read `gyroData` (pull).
    public func startGyroUpdates() { startUpdates(.gyro) }

    /// Starts updates delivered to `handler` on `queue` (push).
    public func startGyroUpdates(to queue: DispatchQueue, withHandler handler: @escaping GyroHandler) {
        startUpdates(GyroData.self, to: queue, withHandler: handler)
    }

    public func stopGyroUpdates() { stopUpdates(.gyro) }

    /// Gyroscope samples at `gyroUpdateInterval`, until the loop over them
    /// ends (none on a part without a gyroscope).
    public func gyroUpdates() -> AsyncStream<GyroData> { samples(GyroData.self) }
}
