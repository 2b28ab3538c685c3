// SPDX-License-Identifier: Apache-2.0
import AccelCore
import AccelParts
@testable import AccelDriver
import Testing

/// The chip model moves a burst of whole FIFO entries at once (replay's
/// fast path); what a reader gets must be what reading the same registers
/// one at a time gives, for each FIFO layout.
@Suite("FIFO bursts on the chip model")
struct FIFOBurstTests {
    /// Two models of `part` in step, a dozen samples of the ramps in their FIFOs.
    private func twins(_ part: ChipProfile) throws -> [(ChipModel, VirtualTime)] {
        try (0..<2).map { _ in
            let (driver, model, time) = try streamingSixAxis(part, rate: part.fifo!.layout == .outputRegisters ? 25 : 26, watermark: 16)
            _ = driver
            time.advance(seconds: 12 / 25.0)
            _ = try model.readRegister(part.fifo!.statusRegister)  // a transaction: the samples are made
            return (model, time)
        }
    }

    @Test("a burst of whole entries reads the bytes, pops the entries and leaves the status that register-by-register reads do",
          arguments: ["LIS3DH", "LSM6DSO", "LSM6DSL"])
    func burstMatchesRegisters(_ name: String) throws {
        let part = try #require(ChipProfile.named(name))
        let spec = try #require(part.fifo)
        let models = try twins(part)
        let (burst, registers) = (models[0].0, models[1].0)
        let length = 5 * spec.entryBytes
        var fromBurst = [UInt8](repeating: 0, count: length)
        try fromBurst.withUnsafeMutableBytes { try burst.readBlock(from: part.burstAddress(spec.dataRegister), into: $0) }
        let fromRegisters = try (0..<length).map { try registers.readRegister(spec.dataRegister + UInt8($0 % spec.entryBytes)) }
        #expect(fromBurst == fromRegisters)
        #expect(fromBurst.contains { $0 != 0 }, "the FIFO held samples")
        #expect(burst.fifoLevel == registers.fifoLevel && burst.fifoHeadPosition == registers.fifoHeadPosition)
        for register in spec.statusRegister..<spec.statusRegister + UInt8(spec.statusLength) {
            #expect(try burst.readRegister(register) == registers.readRegister(register), "status register \(hex(register))")
        }
    }

    @Test("a burst longer than the FIFO holds reads as register-by-register reads do: the entries, then what an empty FIFO gives",
          arguments: ["LIS3DH", "LSM6DSO"])
    func burstPastTheEnd(_ name: String) throws {
        let part = try #require(ChipProfile.named(name))
        let spec = try #require(part.fifo)
        let models = try twins(part)
        let (burst, registers) = (models[0].0, models[1].0)
        let length = (burst.fifo.count + 2) * spec.entryBytes
        var fromBurst = [UInt8](repeating: 0, count: length)
        try fromBurst.withUnsafeMutableBytes { try burst.readBlock(from: part.burstAddress(spec.dataRegister), into: $0) }
        let fromRegisters = try (0..<length).map { try registers.readRegister(spec.dataRegister + UInt8($0 % spec.entryBytes)) }
        #expect(fromBurst == fromRegisters)
        #expect(burst.fifo.isEmpty && registers.fifo.isEmpty)
    }
}
