// SPDX-License-Identifier: Apache-2.0
import AccelCore
import AccelParts

// The register file as the bus sees it: transactions, the output and FIFO
// registers' read side effects, and writes that change the chip's mode.
extension ChipModel {
    // MARK: RegisterBus

    public func readRegister(_ subAddress: UInt8) throws -> UInt8 {
        try begin()
        counters.bytesRead += 1
        return read(subAddress & 0x7F)
    }

    public func writeRegister(_ subAddress: UInt8, _ value: UInt8) throws {
        try begin()
        counters.bytesWritten += 1
        write(subAddress & 0x7F, value)
    }

    public func readBlock(from subAddress: UInt8, into buffer: UnsafeMutableRawBufferPointer) throws {
        guard buffer.count <= maximumReadLength else {
            counters.failedTransactions += 1
            throw BusError.unsupported(path: location, what: "reads longer than \(maximumReadLength) bytes in one transfer")
        }
        try begin()
        counters.bytesRead += buffer.count
        var register: UInt8
        let increments: Bool
        switch profile.autoIncrement {
        case .subAddressBit(let bit):
            register = subAddress & ~bit & 0x7F
            increments = subAddress & bit != 0
        case .controlBit(let field):
            register = subAddress & 0x7F
            increments = registers[Int(field.register)] & field.mask != 0
        }
        if increments && readFIFOBurst(from: register, into: buffer) { return }
        // The auto-increment wraps the FIFO's last data register back to
        // its first (the output registers only while the FIFO streams), so
        // one burst reads many samples.
        let wrapsAt = profile.fifo.map { $0.dataRegister + UInt8($0.entryBytes - 1) }
        let wraps = fifoStreaming || profile.fifo?.layout != .outputRegisters
        for index in 0..<buffer.count {
            buffer[index] = read(register)
            guard increments else { continue }
            register = wraps && register == wrapsAt ? profile.fifo!.dataRegister : (register &+ 1) & 0x7F
        }
    }

    private func read(_ register: UInt8) -> UInt8 {
        if let byte = readWakeUpRegister(register) { return byte }
        let status = profile.statusRegister
        if register == profile.bootField.register, let end = bootEndsAt, time.nanoseconds >= end {
            registers[Int(register)] &= ~profile.bootField.mask  // BOOT clears itself when done
            bootEndsAt = nil
        }
        if profile.gyroscope == nil && register > status && register <= status + 6 {
            return fifoStreaming ? readFIFO(register) : readOutput(register)
        }
        if let spec = profile.fifo, spec.layout != .outputRegisters, let byte = readFIFORegister(register, spec) { return byte }
        if let gyroscope = profile.gyroscope {
            return readSixAxisOutput(register, gyroscope: gyroscope)
        }
        if register == status && dataReadyAlwaysSet { return registers[Int(register)] | 0x0F }
        if let spec = profile.fifo, register == spec.statusRegister {
            if let override = fifoSourceOverride { return override }
            let level = fifo.count
            // FSS counts to 31; a full FIFO (32) shows OVRN_FIFO instead.
            let watermark: UInt32 = level > Int(field(spec.watermarkField)) ? spec.watermarkFlag : 0
            let flags: UInt32 = (level >= spec.depth ? spec.overrunFlag : 0) | (level == 0 ? spec.emptyFlag : 0)
            return UInt8(watermark | flags | UInt32(min(level, Int(spec.levelMask))))
        }
        switch access[Int(register)] {
        case .readClears:
            if profile.register(at: register)?.name == "HP_FILTER_RESET" {
                highPassReference = motion.specificForce(at: motionTime(time.nanoseconds))
            }
            return 0  // interrupt sources: nothing latched (events are not modelled)
        case .readOnly, .readWrite:
            return registers[Int(register)]
        case nil:
            return 0  // reserved
        }
    }

    /// An output register outside FIFO mode: reading an axis's high byte
    /// clears its data-ready and overrun bits.
    private func readOutput(_ register: UInt8) -> UInt8 {
        let offset = register - profile.statusRegister
        if offset % 2 == 0 {
            let bit: UInt8 = 1 << ((offset - 2) / 2)
            var status = registers[Int(profile.statusRegister)] & ~(bit | bit << 4)
            status = status & 0x07 != 0 ? status | 0x08 : status & ~0x08
            status = status & 0x70 != 0 ? status | 0x80 : status & ~0x80
            registers[Int(profile.statusRegister)] = status
        }
        return registers[Int(register)]
    }

    /// An output register in FIFO mode: the oldest sample's byte; reading
    /// OUT_Z_H pops it.
    private func readFIFO(_ register: UInt8) -> UInt8 {
        let index = Int(register - profile.statusRegister - 1)
        guard !fifo.isEmpty else { return registers[Int(register)] }
        let byte = fifo.oldest(index)
        if index == ChipProfile.sampleBytes - 1 {
            fifo.removeOldest()
            if fifo.isEmpty { registers[Int(profile.statusRegister)] = 0 }
        }
        return byte
    }

    private func write(_ register: UInt8, _ value: UInt8) {
        guard access[Int(register)] == .readWrite else {
            ignoredWrites.append((register, value))
            return
        }
        let wasOn = poweredUp, oldRate = rateHertz, oldMode = mode.name, wasStreaming = fifoStreaming
        registers[Int(register)] = value
        derive()
        if fifoStreaming != wasStreaming {
            // Samples made and never read: those queued (bypass empties the
            // FIFO), or the one waiting in the output registers.
            counters.samplesLost += wasStreaming ? fifoLevel : (registers[Int(profile.statusRegister)] & 0x08 != 0 ? 1 : 0)
            if profile.gyroscope == nil { registers[Int(profile.statusRegister)] = 0 }
        }
        if poweredUp && (!wasOn || rateHertz != oldRate || mode.name != oldMode) {
            // Power-up, a new rate or a new mode: a new phase, and the
            // turn-on time of invalid data.
            phaseStart = time.nanoseconds
            lastSampleIndex = 0
        } else if !poweredUp {
            phaseStart = nil
        }
        if register == profile.bootField.register && value & profile.bootField.mask != 0 && bootEndsAt == nil {
            bootEndsAt = time.nanoseconds + UInt64(profile.bootMilliseconds / 2) * 1_000_000
        }
        if profile.fifo != nil && !fifoStreaming {
            fifo.removeAll()  // bypass empties the FIFO (the datasheet's reset)
            fifoHeadPosition = 0
        }
    }
}
