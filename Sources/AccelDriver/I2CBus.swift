// SPDX-License-Identifier: Apache-2.0
import AccelCore
import CI2C

/// A chip on a Linux I2C adapter, through /dev/i2c-N (the i2c-dev module).
///
/// Opening checks the adapter's functionality once. A burst is one SMBus
/// "I2C block read" (write sub-address, repeated start, read n bytes): the
/// exact transaction ST's parts expect. Reads longer than an SMBus block
/// (a FIFO) are one plain I2C_RDWR transfer where the adapter has
/// I2C_FUNC_I2C; the driver splits them for adapters that do not. An adapter without I2C block reads
/// is refused unless the caller allows the byte-by-byte fallback, which
/// costs one transaction per byte and loses the burst's coherence.
public final class I2CBus: RegisterBus {
    public let path: String
    public let address: UInt8
    public let functionality: Functionality
    private let fd: Int32

    public struct Functionality: Sendable, Equatable {
        public let raw: UInt64
        public let plainI2C: Bool
        public let byteData: Bool
        public let blockRead: Bool
        public let blockWrite: Bool
    }

    public var location: String { "\(path) at \(hex(address))" }

    /// True when bursts are emulated with byte reads.
    public var usesByteFallback: Bool { !functionality.blockRead }

    /// Opens `/dev/i2c-<bus>` and selects `address` (7-bit).
    /// - Parameter force: take the address even if a kernel driver owns it
    ///   (I2C_SLAVE_FORCE). Only on an explicit request from a person.
    /// - Parameter allowByteReads: accept an adapter without I2C block reads.
    public convenience init(bus: Int, address: UInt8, force: Bool = false, allowByteReads: Bool = false) throws {
        try self.init(path: "/dev/i2c-\(bus)", address: address, force: force, allowByteReads: allowByteReads)
    }

    public init(path: String, address: UInt8, force: Bool = false, allowByteReads: Bool = false) throws {
        guard address <= 0x7F else {
            throw BusError.unsupported(path: path, what: "address \(hex(address)), which is not a 7-bit address (an 8-bit form? use \(hex(address >> 1)))")
        }
        let opened = ci2c_open_path(path)
        if opened < 0 { throw BusError.from(errno: -opened, path: path, address: address, operation: "open") }
        var funcs = ci2c_functionality()
        let queried = ci2c_functionality_of(opened, &funcs)
        if queried < 0 {
            _ = ci2c_close(opened)
            throw BusError.from(errno: -queried, path: path, address: address, operation: "I2C_FUNCS")
        }
        let functionality = Functionality(
            raw: funcs.raw, plainI2C: funcs.plain_i2c != 0, byteData: funcs.byte_data != 0,
            blockRead: funcs.i2c_block_read != 0, blockWrite: funcs.i2c_block_write != 0)
        guard functionality.byteData else {
            _ = ci2c_close(opened)
            throw BusError.unsupported(path: path, what: "SMBus byte-data transfers")
        }
        guard functionality.blockRead || allowByteReads else {
            _ = ci2c_close(opened)
            throw BusError.unsupported(path: path, what: "I2C block reads (pass --allow-byte-reads to read byte by byte, one transaction per register)")
        }
        let selected = ci2c_select_address(opened, address, force ? 1 : 0)
        if selected < 0 {
            _ = ci2c_close(opened)
            throw BusError.from(errno: -selected, path: path, address: address, operation: "address selection")
        }
        self.fd = opened
        self.path = path
        self.address = address
        self.functionality = functionality
    }

    deinit { _ = ci2c_close(fd) }

    public func readRegister(_ subAddress: UInt8) throws -> UInt8 {
        let result = ci2c_read_byte_data(fd, subAddress)
        if result < 0 { throw fail(result, "read of register \(hex(subAddress))") }
        return UInt8(truncatingIfNeeded: result)
    }

    public func writeRegister(_ subAddress: UInt8, _ value: UInt8) throws {
        let result = ci2c_write_byte_data(fd, subAddress, value)
        if result < 0 { throw fail(result, "write of register \(hex(subAddress))") }
    }

    /// Plain I2C transfers carry a whole FIFO; SMBus block reads 32 bytes.
    public var maximumReadLength: Int { functionality.plainI2C ? Int(CI2C_TRANSFER_MAX) : Int(CI2C_BLOCK_MAX) }

    public func readBlock(from subAddress: UInt8, into buffer: UnsafeMutableRawBufferPointer) throws {
        guard buffer.count > 0 else { return }
        guard buffer.count <= maximumReadLength else {
            throw BusError.unsupported(path: path, what: "reads longer than \(maximumReadLength) bytes in one transfer")
        }
        if buffer.count > Int(CI2C_BLOCK_MAX) {
            let result = ci2c_write_read(fd, address, subAddress, buffer.baseAddress!.assumingMemoryBound(to: UInt8.self), UInt16(buffer.count))
            if result < 0 { throw fail(result, "\(buffer.count)-byte read from \(hex(subAddress))") }
            return
        }
        if functionality.blockRead {
            let result = ci2c_read_i2c_block(fd, subAddress, buffer.baseAddress!.assumingMemoryBound(to: UInt8.self), UInt8(buffer.count))
            if result < 0 { throw fail(result, "block read from \(hex(subAddress))") }
            return
        }
        // Byte fallback: the auto-increment bit means nothing to a single
        // byte read, so walk the registers ourselves.
        let first = subAddress & 0x7F
        let increments = subAddress & 0x80 != 0
        for index in 0..<buffer.count {
            buffer[index] = try readRegister(increments ? first &+ UInt8(index) : first)
        }
    }

    private func fail(_ result: Int32, _ operation: String) -> BusError {
        BusError.from(errno: -result, path: path, address: address, operation: operation)
    }
}
