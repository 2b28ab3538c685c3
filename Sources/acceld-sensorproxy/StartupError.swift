// SPDX-License-Identifier: Apache-2.0

/// A reason to stop, with its exit code (docs/SENSORPROXY.md, "Exit codes").
struct StartupError: Error, CustomStringConvertible {
    let code: Int32
    let message: String
    var description: String { message }

    static let usage: Int32 = 64
    static let noBus: Int32 = 69
    static let software: Int32 = 70
    static let nameTaken: Int32 = 73
    static let notPermitted: Int32 = 77
}
