// swift-tools-version: 6.0
// SPDX-License-Identifier: Apache-2.0
import Foundation
import PackageDescription

let package = Package(
    name: "acceld",
    platforms: [.macOS(.v13)],
    products: [
        .executable(name: "acceld", targets: ["acceld"]),
        .executable(name: "accelctl", targets: ["accelctl"]),
        .library(name: "AccelDriver", targets: ["AccelDriver"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.5.0"),
        .package(url: "https://github.com/apple/swift-log", from: "1.6.0"),
        .package(url: "https://github.com/apple/swift-nio", from: "2.80.0"),
    ],
    targets: [
        // The C shim over i2c-dev and libi2c (Debian: libi2c-dev).
        .target(
            name: "CI2C",
            linkerSettings: [.linkedLibrary("i2c")]
        ),
        // Registers to g: bus seam, I2C bus, chip profiles, driver, chip model.
        .target(name: "AccelDriver", dependencies: ["CI2C"]),
        // The pure pipeline: filters, attitude, detectors. No I/O.
        .target(name: "AccelMotion", dependencies: ["AccelDriver"]),
        // The wire messages, shared by the daemon, replay and clients.
        .target(name: "AccelProtocol", dependencies: ["AccelDriver", "AccelMotion"]),
        // The daemon's logic: configuration, replay, sampler, hub, server.
        .target(
            name: "AccelDaemon",
            dependencies: [
                "AccelDriver", "AccelMotion", "AccelProtocol",
                .product(name: "Logging", package: "swift-log"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
            ]
        ),
        // The detectors' regression table on the development recordings
        // (accel-bench signal, and the tests that hold its targets).
        .target(name: "AccelEvaluation", dependencies: ["AccelDaemon", "AccelDriver", "AccelMotion"]),
        // Bring-up and client logic for accelctl: probe, dump, calibration,
        // rate, the daemon client, plots, the terminal view.
        .target(name: "AccelTools", dependencies: ["AccelDriver", "AccelMotion", "AccelProtocol", "AccelDaemon"]),
        .executableTarget(
            name: "accelctl",
            dependencies: [
                "AccelTools", "AccelDriver", "AccelMotion", "AccelProtocol", "AccelDaemon",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ]
        ),
        // Benchmarks that print figures: make bench (docs/PERFORMANCE.md).
        .executableTarget(
            name: "accel-bench",
            dependencies: [
                "AccelDaemon", "AccelDriver", "AccelMotion", "AccelEvaluation",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "NIOPosix", package: "swift-nio"),
            ],
            path: "Benchmarks/accel-bench"
        ),
        .executableTarget(
            name: "acceld",
            dependencies: [
                "AccelDriver",
                "AccelDaemon",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ]
        ),
        .testTarget(name: "AccelDriverTests", dependencies: ["AccelDriver"]),
        .testTarget(name: "AccelMotionTests", dependencies: ["AccelMotion"]),
        // Test helper: rewrites a calibration file until killed (crash-safety test).
        .executableTarget(name: "calibration-writer", dependencies: ["AccelDaemon", "AccelDriver"], path: "Tests/Helpers/calibration-writer"),
        // Runs the built binaries and talks to them: shared by the end-to-end tests.
        .target(name: "TestSupport", dependencies: ["AccelDriver"], path: "Tests/TestSupport"),
        .testTarget(name: "AccelDaemonTests", dependencies: ["AccelDaemon", "AccelProtocol", "AccelEvaluation", "TestSupport"]),
        .testTarget(name: "AccelToolsTests", dependencies: ["AccelTools", "AccelDaemon", "TestSupport"]),
    ],
    swiftLanguageModes: [.v6]
)

// libFuzzer targets for the parsers, only when ACCELD_FUZZ is set
// (scripts/fuzz.sh): built with -sanitize=fuzzer for every module.
if ProcessInfo.processInfo.environment["ACCELD_FUZZ"] != nil {
    let asLibrary: [SwiftSetting] = [.unsafeFlags(["-parse-as-library"])]
    package.targets += [
        .target(name: "FuzzerDriver", path: "Fuzz/driver"),
        .executableTarget(name: "fuzz-request", dependencies: ["AccelProtocol", "FuzzerDriver"], path: "Fuzz/request", swiftSettings: asLibrary),
        .executableTarget(name: "fuzz-trace", dependencies: ["AccelDriver", "FuzzerDriver"], path: "Fuzz/trace", swiftSettings: asLibrary),
        .executableTarget(name: "fuzz-config", dependencies: ["AccelDaemon", "FuzzerDriver"], path: "Fuzz/config", swiftSettings: asLibrary),
    ]
}
