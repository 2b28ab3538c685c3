// swift-tools-version: 6.0
// SPDX-License-Identifier: Apache-2.0
import Foundation
import PackageDescription

// The examples of docs/CLIENTS.md, one program each, built on AccelClient.
let examples: [Target] = ["FirstTenLines", "BubbleLevel", "ShakeToRing", "TiltToScroll", "DataLogger", "AutoRotation"].map { name in
    .executableTarget(name: name, dependencies: ["AccelClient"], path: "Examples/\(name)")
}

let package = Package(
    name: "acceld",
    platforms: [.macOS(.v13)],
    products: [
        .executable(name: "acceld", targets: ["acceld"]),
        .executable(name: "accelctl", targets: ["accelctl"]),
        .executable(name: "acceld-ros2", targets: ["acceld-ros2"]),
        .executable(name: "acceld-gateway", targets: ["acceld-gateway"]),
        .executable(name: "acceld-sensorproxy", targets: ["acceld-sensorproxy"]),
        .library(name: "AccelDriver", targets: ["AccelDriver"]),
        // For programs on the board: Core Motion's shape over acceld's socket.
        .library(name: "AccelClient", targets: ["AccelClient"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.5.0"),
        .package(url: "https://github.com/apple/swift-log", from: "1.6.0"),
        .package(url: "https://github.com/apple/swift-nio", from: "2.80.0"),
        .package(url: "https://github.com/swift-server/swift-prometheus", from: "2.1.0"),
    ],
    targets: [
        // A deliberate race that the ThreadSanitizer stage must report
        // (scripts/tsan-test.sh); not installed.
        .executableTarget(name: "tsan-canary", path: "Tests/TSanCanary"),
        // The value types everything shares: Vector3, Axis, Sample,
        // calibration and mount matrix, time sources, number formatting.
        // No dependencies at all.
        .target(name: "AccelCore"),
        // The C shim over i2c-dev and libi2c (Debian: libi2c-dev).
        .target(
            name: "CI2C",
            linkerSettings: [.linkedLibrary("i2c")]
        ),
        // The C shim over the kernel's GPIO character device (v2 uAPI): the
        // chip's INT line, its edges and their kernel timestamps.
        .target(name: "CGPIO"),
        // The parts as data, for everything that names or configures one
        // without driving it: the table of parts (ChipProfile), what a user
        // configures on one (DeviceConfiguration), where its INT pin is
        // wired (GPIOLineSpec), and what a part or a line cannot do
        // (DriverError, GPIOError). No I/O, no C library.
        .target(name: "AccelParts", dependencies: ["AccelCore"]),
        // Registers to g: bus seam, I2C bus, GPIO line, driver, chip model.
        .target(name: "AccelDriver", dependencies: ["AccelCore", "AccelParts", "CI2C", "CGPIO"]),
        // The pure pipeline: filters, attitude, detectors. No I/O.
        .target(name: "AccelMotion", dependencies: ["AccelCore"]),
        // What a watched machine is and how it is analysed, as data: ISO
        // classes and zones, bearing factors, shaft, state thresholds,
        // windows. Pure, no FFT: the configuration names them too.
        .target(name: "AccelMachine"),
        // KissFFT (Debian: libkissfft-dev, BSD-3-Clause; FFTW is GPL): the
        // vibration module's transforms. No pkgConfig: SwiftPM refuses the
        // -D its .pc file adds, and the shim defines the same itself.
        .systemLibrary(name: "CKissFFT"),
        // Machines' vibration: windows, spectra, condition figures, ISO
        // velocity zones, envelope, bearing orders, machine state. No I/O.
        .target(name: "AccelVibration", dependencies: ["AccelCore", "AccelMachine", "CKissFFT"]),
        // Every message on the socket, both ways, as types that encode and decode.
        .target(name: "AccelProtocol", dependencies: ["AccelCore", "AccelMotion"]),
        // Core Motion for acceld's clients: MotionManager, push, pull,
        // async sequences, events, reconnection. No NIO, no libi2c.
        .target(name: "AccelClient", dependencies: ["AccelCore", "AccelMotion", "AccelProtocol"]),
        // What the daemon shares with its tools and the gateway, without
        // NIO and without the driver: the configuration file, the
        // calibration file, sd_notify and socket activation.
        .target(name: "AccelConfiguration", dependencies: ["AccelCore", "AccelParts", "AccelMachine", "AccelMotion", "AccelProtocol"]),
        // A recording through the daemon's core on virtual time, as values
        // (the evaluations, accelctl's offline commands, tests); what
        // `acceld replay` plays by name, ROS 2 bags included.
        .target(name: "AccelReplay", dependencies: ["AccelCore", "AccelDriver", "AccelMotion", "AccelProtocol", "AccelConfiguration", "AccelDaemon", "AccelROS2"]),
        // The daemon's logic: sampler, hub, server.
        .target(
            name: "AccelDaemon",
            dependencies: [
                "AccelCore", "AccelParts", "AccelDriver", "AccelMotion", "AccelProtocol", "AccelConfiguration", "AccelMachine", "AccelVibration",
                .product(name: "Logging", package: "swift-log"),
            ]
        ),
        // Eclipse Mosquitto's C client library (Debian: libmosquitto-dev).
        .systemLibrary(name: "CMosquitto", pkgConfig: "libmosquitto", providers: [.apt(["libmosquitto-dev"])]),
        // The network faces, outside the daemon: HTTP and WebSocket (NIO's
        // own handlers), the live page's streams, Prometheus metrics, MQTT.
        .target(
            name: "AccelGateway",
            dependencies: [
                "AccelCore", "AccelProtocol", "AccelClient", "AccelConfiguration", "AccelMachine", "CMosquitto",
                .product(name: "Logging", package: "swift-log"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "NIOWebSocket", package: "swift-nio"),
                .product(name: "Prometheus", package: "swift-prometheus"),
            ]
        ),
        .executableTarget(
            name: "acceld-gateway",
            dependencies: [
                "AccelGateway", "AccelConfiguration",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "Logging", package: "swift-log"),
            ]
        ),
        // systemd's sd-bus and sd_notify (Debian: libsystemd-dev).
        .systemLibrary(name: "CSystemd", pkgConfig: "libsystemd", providers: [.apt(["libsystemd-dev"])]),
        // iio-sensor-proxy's D-Bus objects as sd-bus vtables (C macros Swift
        // cannot import); every call is forwarded to Swift.
        .target(name: "CSensorProxyBus", dependencies: ["CSystemd"]),
        // The D-Bus face's logic without the bus: claims, the orientation
        // mapping, the properties and what changed.
        .target(name: "AccelSensorProxy", dependencies: ["AccelMotion"]),
        .executableTarget(
            name: "acceld-sensorproxy",
            dependencies: [
                "AccelSensorProxy", "AccelCore", "AccelProtocol", "AccelClient", "CSensorProxyBus", "CSystemd",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ]
        ),
        // ROS 2's messages in CDR and MCAP recordings of them (accelctl
        // record --format mcap). No DDS: nothing here touches the network.
        .target(name: "AccelROS2", dependencies: ["AccelCore", "AccelParts", "AccelProtocol"]),
        // ROS 2's message types for Cyclone DDS (Debian: cyclonedds-dev),
        // generated by Debian's idlc from ros2_types.idl and kept in the
        // tree (scripts/ros2/generate-types.sh --check: nothing changes).
        .target(name: "CROS2Types", exclude: ["ros2_types.idl"], linkerSettings: [.linkedLibrary("ddsc")]),
        // acceld-ros2's parts: DDS writers for ROS 2's topics, the bridge
        // from acceld's socket to them.
        .target(name: "AccelROS2Bridge", dependencies: ["AccelCore", "AccelProtocol", "AccelClient", "AccelConfiguration", "AccelROS2", "CROS2Types"]),
        .executableTarget(
            name: "acceld-ros2",
            dependencies: [
                "AccelROS2Bridge", "AccelClient", "AccelConfiguration",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ]
        ),
        // The detectors' regression table on the development recordings
        // (accel-bench signal, and the tests that hold its targets).
        .target(name: "AccelEvaluation", dependencies: ["AccelCore", "AccelParts", "AccelDriver", "AccelMotion", "AccelProtocol", "AccelConfiguration", "AccelReplay", "AccelVibration"]),
        // Bring-up and client logic for accelctl: probe, dump, calibration,
        // rate, plots, the terminal view.
        .target(name: "AccelTools", dependencies: ["AccelCore", "AccelParts", "AccelDriver", "AccelMotion", "AccelProtocol", "AccelVibration"]),
        .executableTarget(
            name: "accelctl",
            dependencies: [
                "AccelTools", "AccelCore", "AccelParts", "AccelDriver", "AccelMotion", "AccelProtocol", "AccelClient", "AccelConfiguration", "AccelReplay",
                "AccelVibration", "AccelROS2",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ]
        ),
        .executableTarget(
            name: "acceld",
            dependencies: [
                "AccelCore", "AccelParts", "AccelDriver", "AccelProtocol", "AccelConfiguration", "AccelDaemon", "AccelReplay",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "Logging", package: "swift-log"),
            ]
        ),
        // Benchmarks that print figures: make bench (docs/PERFORMANCE.md).
        .executableTarget(
            name: "accel-bench",
            dependencies: [
                "AccelCore", "AccelParts", "AccelDriver", "AccelMotion", "AccelProtocol", "AccelClient", "AccelConfiguration",
                "AccelDaemon", "AccelEvaluation", "AccelVibration",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
            ],
            path: "Benchmarks/accel-bench"
        ),
    ] + examples + [
        .testTarget(name: "AccelDriverTests", dependencies: ["AccelCore", "AccelParts", "AccelDriver", "TestSupport"]),
        .testTarget(name: "AccelMotionTests", dependencies: ["AccelCore", "AccelMotion"]),
        .testTarget(name: "AccelVibrationTests", dependencies: ["AccelCore", "AccelParts", "AccelDriver", "AccelEvaluation", "AccelVibration"]),
        .testTarget(name: "AccelProtocolTests", dependencies: ["AccelCore", "AccelMotion", "AccelProtocol", "TestSupport"]),
        // Test helper: rewrites a calibration file until killed (crash-safety test).
        .executableTarget(name: "calibration-writer", dependencies: ["AccelCore", "AccelDriver", "AccelConfiguration"], path: "Tests/Helpers/calibration-writer"),
        // Runs the built binaries and talks to them: shared by the end-to-end tests.
        .target(
            name: "TestSupport",
            dependencies: [
                "AccelCore", "AccelParts", "AccelDriver", "AccelProtocol", "AccelConfiguration", "AccelDaemon",
                .product(name: "Logging", package: "swift-log"),
            ],
            path: "Tests/TestSupport"
        ),
        .testTarget(
            name: "AccelDaemonTests",
            dependencies: [
                "AccelCore", "AccelParts", "AccelDriver", "AccelMotion", "AccelProtocol", "AccelConfiguration", "AccelMachine", "AccelReplay",
                "AccelDaemon", "AccelEvaluation", "AccelROS2", "TestSupport",
            ]
        ),
        .testTarget(name: "AccelClientTests", dependencies: ["AccelCore", "AccelDriver", "AccelProtocol", "AccelClient", "TestSupport"]),
        .testTarget(name: "AccelToolsTests", dependencies: ["AccelCore", "AccelParts", "AccelDriver", "AccelMotion", "AccelConfiguration", "AccelTools", "TestSupport", "AccelVibration", "AccelProtocol"]),
        .testTarget(name: "AccelGatewayTests", dependencies: ["AccelCore", "AccelProtocol", "AccelConfiguration", "AccelGateway"]),
        .testTarget(name: "AccelSensorProxyTests", dependencies: ["AccelMotion", "AccelSensorProxy"]),
        .testTarget(name: "AccelROS2Tests", dependencies: ["AccelCore", "AccelProtocol", "AccelConfiguration", "AccelROS2"]),
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
        .executableTarget(name: "fuzz-trace", dependencies: ["AccelCore", "AccelDriver", "FuzzerDriver"], path: "Fuzz/trace", swiftSettings: asLibrary),
        .executableTarget(name: "fuzz-config", dependencies: ["AccelConfiguration", "FuzzerDriver"], path: "Fuzz/config", swiftSettings: asLibrary),
    ]
}
