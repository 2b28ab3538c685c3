// swift-tools-version: 6.0
import PackageDescription

let package = Package(
    name: "acceld",
    platforms: [.macOS(.v13)],
    products: [
        .executable(name: "acceld", targets: ["acceld"]),
        .library(name: "AccelDriver", targets: ["AccelDriver"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.5.0"),
    ],
    targets: [
        // The C shim over i2c-dev and libi2c (Debian: libi2c-dev).
        .target(
            name: "CI2C",
            linkerSettings: [.linkedLibrary("i2c")]
        ),
        // Registers to g: bus seam, I2C bus, chip profiles, driver, chip model.
        .target(name: "AccelDriver", dependencies: ["CI2C"]),
        .executableTarget(
            name: "acceld",
            dependencies: [
                "AccelDriver",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ]
        ),
        .testTarget(name: "AccelDriverTests", dependencies: ["AccelDriver"]),
    ],
    swiftLanguageModes: [.v6]
)
