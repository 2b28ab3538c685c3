// SPDX-License-Identifier: Apache-2.0
#if canImport(Glibc)
import Glibc
#endif

/// The examples' one argument, how many seconds to run, read as a small
/// program should: `--help` prints the usage and exits 0, anything else that
/// is not a number of seconds is a usage error (64, docs/ERRORS.md).
public enum ExampleArguments {
    /// The seconds given, or `.infinity`; `usage` is the program's line,
    /// e.g. "BubbleLevel [seconds]: a bubble level in the terminal".
    public static func seconds(usage: String, arguments: [String] = CommandLine.arguments) -> Double {
        let rest = arguments.dropFirst()
        if rest.contains(where: { $0 == "--help" || $0 == "-h" }) {
            print("Usage: \(usage)\nRuns until Ctrl-C, or for the seconds given. ACCELD_SOCKET names acceld's socket when it is not \(DaemonConnection.defaultSocket).")
            exit(0)
        }
        guard let first = rest.first else { return .infinity }
        guard rest.count == 1, let seconds = Double(first), seconds > 0 else {
            var message = "Usage: \(usage)\n'\(rest.joined(separator: " "))' is not a number of seconds: give one (e.g. 10), or none to run until Ctrl-C\n"
            message.withUTF8 { _ = write(2, $0.baseAddress, $0.count) }
            exit(64)
        }
        return seconds
    }
}
