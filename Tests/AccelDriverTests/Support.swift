// SPDX-License-Identifier: Apache-2.0
import AccelCore
import AccelParts
@testable import AccelDriver

/// Wraps a bus and records every write; can also lie on read-back.
final class RecordingBus: RegisterBus {
    let inner: RegisterBus
    var writes: [(UInt8, UInt8)] = []
    var readOverrides: [UInt8: UInt8] = [:]

    init(_ inner: RegisterBus) { self.inner = inner }

    var location: String { inner.location }
    var maximumReadLength: Int { inner.maximumReadLength }

    func readRegister(_ subAddress: UInt8) throws -> UInt8 {
        if let value = readOverrides[subAddress & 0x7F] { return value }
        return try inner.readRegister(subAddress)
    }

    func writeRegister(_ subAddress: UInt8, _ value: UInt8) throws {
        writes.append((subAddress, value))
        try inner.writeRegister(subAddress, value)
    }

    func readBlock(from subAddress: UInt8, into buffer: UnsafeMutableRawBufferPointer) throws {
        try inner.readBlock(from: subAddress, into: buffer)
    }
}

/// A model on a virtual clock, holding `force` still.
func stillModel(_ force: Vector3 = Vector3(0, 0, 1), imperfections: ChipModel.Imperfections = .init()) -> (ChipModel, VirtualTime) {
    let time = VirtualTime()
    let model = ChipModel(motion: MotionScript(name: "still", segments: [.hold(force, seconds: 1)]), time: time,
                          imperfections: imperfections)
    return (model, time)
}

/// A configured driver on a still model.
func configuredDriver(_ force: Vector3 = Vector3(0, 0, 1), range: Int = 2, rate: Int = 100,
                      imperfections: ChipModel.Imperfections = .init()) throws -> (Accelerometer, ChipModel, VirtualTime) {
    let (model, time) = stillModel(force, imperfections: imperfections)
    let driver = try Accelerometer(bus: model, time: time)
    try driver.configure(DeviceConfiguration(range: range, rate: rate))
    return (driver, model, time)
}

/// ../shared/data beside the checkout (CI clones main next to shared/).
let sharedData: String = {
    var parts = #filePath.split(separator: "/").map(String.init)
    parts.removeLast(3)  // Tests/AccelDriverTests/Support.swift
    return "/" + (parts + ["..", "shared", "data"]).joined(separator: "/")
}()
