// SPDX-License-Identifier: Apache-2.0

extension ChipProfile {
    /// The rate acceld runs at when none is named (`rate = auto`): the
    /// detectors' defaults were tuned, and the shared recordings made, at
    /// 100 Hz, and every three-axis part offers it.
    public static let preferredRate = 100

    /// The rate of `mode` (the part's first when nil) nearest to
    /// `preferredRate`: 100 Hz on the three-axis parts, 104 Hz on ST's
    /// six-axis ones (their rates double from 26 Hz). A tie goes to the
    /// faster rate, which samples the motion no worse. Nil for a mode the
    /// part lacks.
    public func automaticRate(mode name: String? = nil) -> Int? {
        guard let mode = mode(named: name) else { return nil }
        return mode.rates.map(\.hertz).min { a, b in
            let (da, db) = (abs(a - Self.preferredRate), abs(b - Self.preferredRate))
            return da != db ? da < db : a > b
        }
    }
}
