// SPDX-License-Identifier: Apache-2.0
/// The [power] section: letting the chip watch while nothing moves.
public struct PowerSettings: Sendable, Equatable {
    /// Hand the watching to the chip's wake-up unit when the board has
    /// been still for `stillSeconds` and no client watches frames; needs
    /// the INT pin on a GPIO line ([device] interrupt).
    public var wakeOnMotion = false
    public var stillSeconds = 30.0
    /// Motion that wakes the board, gravity filtered out, g.
    public var wakeThreshold = 0.1
    public init() {}

    /// Why these settings cannot run with `device`, ending with `fix`; nil
    /// when they can.
    public func problem(with device: DeviceSettings,
                        fix: String = "set [device] interrupt (with --simulate, interrupt = model), or wake-on-motion = off") -> String? {
        guard wakeOnMotion, device.interrupt == nil else { return nil }
        return "wake-on-motion needs the chip's INT pin on a GPIO line, to hear the chip wake: \(fix)"
    }
}
