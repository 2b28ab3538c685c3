// SPDX-License-Identifier: Apache-2.0
import Dispatch

public typealias GyroHandler = @Sendable (GyroData?, (any Error)?) -> Void

/// Core Motion's gyroscope updates (startGyroUpdates and the rest), on
/// the same connection as everything else a manager is asked for. On a
/// part without a gyroscope `isGyroAvailable` is false, and a push
/// handler gets `(nil, ClientError.noGyroscope)` once a connection, as
/// the other handlers get the errors that stop their updates.
extension MotionManager {
    public var isGyroActive: Bool { state.withLock { $0.gyroActive } }

    /// Seconds between gyroscope updates; served by acceld at the nearest
    /// rate the chip's divides into.
    public var gyroUpdateInterval: Double {
        get { state.withLock { $0.gyroInterval } }
        set { state.withLock { $0.gyroInterval = max(0, newValue) }; resubscribe() }
    }

    /// The latest gyroscope sample, while gyroscope updates run (pull);
    /// nil on a part without one.
    public var gyroData: GyroData? { state.withLock { $0.latestGyro } }

    /// Starts updates without a handler: read `gyroData` (pull).
    public func startGyroUpdates() {
        state.withLock { $0.gyroActive = true }
        resubscribe()
    }

    /// Starts updates delivered to `handler` on `queue` (push).
    public func startGyroUpdates(to queue: DispatchQueue, withHandler handler: @escaping GyroHandler) {
        let id = add(.gyro, interval: nil) { update in
            switch update {
            case .gyro(let data): queue.async { handler(data, nil) }
            case .failure(let error): queue.async { handler(nil, error) }
            default: break
            }
        }
        let chipWithout = state.withLock { state -> String? in
            if let old = state.gyroHandlerID { state.subscribers[old] = nil }
            state.gyroHandlerID = id
            state.gyroActive = true
            // Connected already: the reader will not say it again.
            return state.connection != nil && state.device?.gyroscope == nil ? state.device?.chip : nil
        }
        if let chipWithout { queue.async { handler(nil, ClientError.noGyroscope(chipWithout)) } }
        resubscribe()
    }

    public func stopGyroUpdates() {
        state.withLock {
            if let id = $0.gyroHandlerID { $0.subscribers[id] = nil }
            $0.gyroHandlerID = nil
            $0.gyroActive = false
        }
        resubscribe()
    }

    /// Gyroscope samples at `gyroUpdateInterval`, until the loop over them
    /// ends (none on a part without a gyroscope).
    public func gyroUpdates() -> AsyncStream<GyroData> {
        stream(.gyro) { if case .gyro(let data) = $0 { data } else { nil } }
    }
}
