// SPDX-License-Identifier: Apache-2.0

/// A rate as a person gives it on a command line: `auto` (the part's
/// rate nearest 100 Hz) or whole hertz, checked later against the part.
public enum RateChoice: Sendable, Equatable {
    case auto
    case hertz(Int)

    public init?(_ text: String) {
        if text.lowercased() == "auto" {
            self = .auto
        } else if let hertz = Int(text), hertz > 0 {
            self = .hertz(hertz)
        } else {
            return nil
        }
    }

    /// The value for `DeviceSettings.rate`: nil is auto.
    public var setting: Int? {
        if case .hertz(let hertz) = self { return hertz }
        return nil
    }
}
