// SPDX-License-Identifier: Apache-2.0

/// The protocol version clients see in `hello`. It rises when the protocol
/// gains fields, classes or requests; nothing that exists changes meaning
/// (docs/PROTOCOL.md, "Versions"), so clients accept a newer one.
public let protocolVersion = 3

/// The release, as `hello` and `--version` report it.
public let acceldVersion = "0.2.0"

/// Decimals on the wire: 0.1 mg for g (the finest part of the family
/// resolves 1 mg), 1 µs for time, 0.01° for angles, 1 mm for heights.
enum Decimals {
    static let g = 4
    static let t = 6
    static let angle = 2
    static let height = 3
    /// rad/s: 10 µrad/s, finer than a gyroscope's noise.
    static let rate = 5
    static let quaternion = 5
}

func degrees(_ radians: Double) -> Double { radians * 180 / .pi }
func radians(_ degrees: Double) -> Double { degrees * .pi / 180 }
