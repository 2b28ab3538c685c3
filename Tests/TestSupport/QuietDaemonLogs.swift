// SPDX-License-Identifier: Apache-2.0
import Foundation
import Logging

/// The daemons tests run in their own process (`SocketDaemon`, the
/// in-process suites) log as acceld does, to standard error: the tests
/// that inject faults would fill a passing run's output with the errors
/// they expect. Only critical messages reach it, unless ACCELD_TEST_LOG
/// names a level (ACCELD_TEST_LOG=debug swift test --filter ...).
public enum QuietDaemonLogs {
    /// Sets the process's log level once; call before a daemon starts.
    public static func install() { _ = installed }

    private static let installed: Void = {
        let wanted = ProcessInfo.processInfo.environment["ACCELD_TEST_LOG"].flatMap(Logger.Level.init(rawValue:))
        LoggingSystem.bootstrap { label in
            var handler = StreamLogHandler.standardError(label: label)
            handler.logLevel = wanted ?? .critical
            return handler
        }
    }()
}
