// SPDX-License-Identifier: Apache-2.0
import AccelMotion

/// iio-sensor-proxy's AccelerometerOrientation values. Its screen frame is
/// the hwdb's: x to the right of the screen, y to its top edge, z out of
/// it; "normal" is the top edge up, "left-up" the left edge up (its
/// orientation.c: a reading of +1 g on x, gravity pointing at +x, is
/// left-up; -1 g on x is right-up).
public enum SensorProxyOrientation: String, Sendable, CaseIterable {
    case undefined
    case normal
    case bottomUp = "bottom-up"
    case leftUp = "left-up"
    case rightUp = "right-up"

    /// acceld's board axes play the screen's (the mount matrix makes them
    /// so: docs/SENSORPROXY.md), and acceld names the axis pointing up:
    /// portrait is +Y up (the top edge), landscapeLeft +X up (the right
    /// edge, as UIDeviceOrientation.landscapeLeft is), landscapeRight -X up.
    /// Lying flat, and before anything is decided, there is no upright
    /// orientation: nil, and the caller keeps the last one, as
    /// iio-sensor-proxy does (it never reports a face up or down).
    public init?(upright orientation: DeviceOrientation) {
        switch orientation {
        case .portrait: self = .normal
        case .portraitUpsideDown: self = .bottomUp
        case .landscapeLeft: self = .rightUp
        case .landscapeRight: self = .leftUp
        case .faceUp, .faceDown, .unknown: return nil
        }
    }
}
