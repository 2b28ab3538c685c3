// SPDX-License-Identifier: Apache-2.0
extension Accelerometer {
    /// The registers that route the part's INT pins, with their values now:
    /// read before acceld routes a pin, written back when it lets go, so
    /// that it leaves the routing as it found it.
    public func interruptRouting() throws -> [(register: UInt8, value: UInt8)] {
        guard let pins = profile.interruptPins else { return [] }
        let registers = Set(pins.routes.flatMap { $0.settings.map(\.field.register) } + [pins.activeHigh.field.register]).sorted()
        return try registers.map { ($0, try bus.readRegister($0)) }
    }

    /// Writes back what `interruptRouting` read.
    public func restore(routing: [(register: UInt8, value: UInt8)]) throws {
        for (register, value) in routing { try bus.writeRegister(register, value) }
    }
}
