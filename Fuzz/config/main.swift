// SPDX-License-Identifier: Apache-2.0
// libFuzzer target: any bytes as a configuration file, and as run-time
// tunables. Parsed or refused with a line and a reason, never crashed.
import FuzzerDriver
import AccelConfiguration

func fuzzConfiguration(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    guard let data else { return 0 }
    let text = String(decoding: UnsafeBufferPointer(start: data, count: size), as: UTF8.self)
    do {
        let device = try Configuration(parsing: text, source: "fuzz").device
        // What parses runs: its part (when named) takes the range, rate and
        // mode, and `auto` or a default always comes to a real rate.
        if let profile = device.profile { precondition(device.problem(on: profile) == nil) }
        precondition(device.configuration.range > 0 && device.configuration.rate > 0)
    } catch let error as ConfigurationError {
        precondition(!error.message.isEmpty)
    } catch {
        preconditionFailure("unexpected error \(error)")
    }
    var configuration = Configuration()
    let pairs = text.split(separator: "\n").prefix(8).map { $0.split(separator: "=", maxSplits: 1) }
    _ = configuration.applyTunables(Dictionary(pairs.filter { $0.count == 2 }.map { (String($0[0]), String($0[1])) }, uniquingKeysWith: { a, _ in a }))
    return 0
}

/// SwiftPM renames an executable's main to <target>_main; this is it, and it
/// runs libFuzzer with our callback.
@_cdecl("fuzz_config_main")
func fuzzMain(_ argc: CInt, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?) -> CInt {
    var argc = argc
    var argv = argv
    return LLVMFuzzerRunDriver(&argc, &argv) { fuzzConfiguration($0, $1) }
}
