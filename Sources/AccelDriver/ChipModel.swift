// SPDX-License-Identifier: Apache-2.0
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A LIS302DL at register level, behaving as the datasheet says, on an
/// injected clock. It implements `RegisterBus`, so the driver, the sampler
/// and the tools run on it exactly as on a real adapter.
///
/// Modelled: reset values (CTRL_REG1 = 0x07, powered down); WHO_AM_I; writes
/// to read-only or reserved registers ignored and recorded; no data while
/// PD = 0 and none for 3/ODR after power-up; samples at the ODR (with a
/// configurable rate error); STATUS data-ready and overrun bits, cleared per
/// axis as its output is read; auto-increment only with bit 7 of the
/// sub-address; dummies between the outputs; quantisation to the range's
/// digit and clipping at −128..127; zero-g offset, sensitivity error and
/// seeded noise; self-test deflection with STP/STM; FDS high-pass output;
/// BOOT clearing itself; fault injection; transaction counters.
///
/// Not thread-safe: confine it with its user (the sampler's queue, a test).
public final class ChipModel: RegisterBus {
    /// How this particular chip differs from the typical one.
    public struct Imperfections: Sendable {
        /// Zero-g offset in g, per axis (datasheet: about ±40 mg at ±2 g).
        public var offset = Vector3.zero
        /// Relative sensitivity error per axis: 0.05 reads 5 % high.
        public var sensitivityError = Vector3.zero
        /// RMS noise in g per axis per sample.
        public var noise = 0.0
        /// Relative ODR error: 0.02 makes the chip 2 % fast (datasheet ±10 %).
        public var rateError = 0.0
        /// Force the self-test actuator adds with STP, in g: 20 digits at
        /// ±2 g per axis, X negative (the kernel's limits give the sign).
        public var selfTestForce = Vector3(-0.36, 0.36, 0.36)
        /// Axes whose output register is stuck at a value (a broken part).
        public var stuckOutputs: [Axis: Int8] = [:]
        public var seed: UInt64 = 0x1C
        public init() {}
    }

    public enum Register {
        public static let whoAmI: UInt8 = 0x0F
        public static let ctrl1: UInt8 = 0x20
        public static let ctrl2: UInt8 = 0x21
        public static let ctrl3: UInt8 = 0x22
        public static let hpFilterReset: UInt8 = 0x23
        public static let status: UInt8 = 0x27
        public static let outX: UInt8 = 0x29
        public static let outY: UInt8 = 0x2B
        public static let outZ: UInt8 = 0x2D
        /// Read-write registers besides the three CTRLs: free-fall/wake-up
        /// units 1 and 2 (CFG, THS, DURATION) and the click unit.
        static let readWrite: Set<UInt8> = [0x20, 0x21, 0x22, 0x30, 0x32, 0x33, 0x34, 0x36, 0x37, 0x38, 0x3B, 0x3C, 0x3D, 0x3E, 0x3F]
        /// Read-only registers that read as something other than storage.
        static let readOnly: Set<UInt8> = [0x0F, 0x23, 0x27, 0x28, 0x29, 0x2A, 0x2B, 0x2C, 0x2D, 0x31, 0x35, 0x39]
    }

    /// Transaction counters, for tests and the bus-efficiency benchmark.
    public struct Counters: Sendable, Equatable {
        public var transactions = 0
        public var failedTransactions = 0
        public var bytesRead = 0
        public var bytesWritten = 0
        /// Samples the chip converted since power-up.
        public var samplesProduced = 0
        /// Samples overwritten before all their outputs were read.
        public var samplesLost = 0
    }

    public let profile = ChipProfile.lis302dl
    public var location: String
    public var motion: any MotionSource
    // The properties marked @exclusivity(unchecked) are read and written on
    // every sample, only from the owner's queue and never re-entrantly:
    // their run-time exclusivity checks were 18 % of replay's instructions
    // (callgrind), for no protection the compiler's static checks lack.
    @exclusivity(unchecked) public var imperfections: Imperfections
    @exclusivity(unchecked) public private(set) var counters = Counters()
    /// Writes the chip ignored (read-only or reserved registers), in order.
    public private(set) var ignoredWrites: [(register: UInt8, value: UInt8)] = []

    private let time: TimeSource
    /// The clock reading that is t = 0 for the motion source.
    private let motionEpoch: UInt64
    @exclusivity(unchecked) private var registers = [UInt8](repeating: 0, count: 128)
    private var random: SeededRandom
    /// When PD went to 1 (or the rate changed): sample k is made at
    /// phaseStart + k periods, the first valid one at k = 3.
    @exclusivity(unchecked) private var phaseStart: UInt64?
    @exclusivity(unchecked) private var lastSampleIndex: UInt64 = 0
    @exclusivity(unchecked) private var bootEndsAt: UInt64?
    /// The FDS high-pass filter's reference (a low-pass of the input).
    @exclusivity(unchecked) private var highPassReference = Vector3.zero

    // Faults.
    @exclusivity(unchecked) private var failuresLeft = 0
    private var failureErrno: Int32 = EIO
    @exclusivity(unchecked) private var failingUntil: UInt64?
    /// False while the chip is "gone": every transaction is NACKed.
    @exclusivity(unchecked) public var present = true
    /// True to model a stuck converter: ZYXDA never sets again.
    @exclusivity(unchecked) public var dataReadyStuck = false

    public init(motion: any MotionSource = MotionScript.rest(), time: TimeSource,
                imperfections: Imperfections = Imperfections(), location: String = "chip model at 0x1c") {
        self.motion = motion
        self.time = time
        self.imperfections = imperfections
        self.location = location
        self.motionEpoch = time.nanoseconds
        self.random = SeededRandom(seed: imperfections.seed)
        resetRegisters()
    }

    // MARK: Fault injection

    /// The next `count` transactions fail with `errno` (EIO by default).
    public func failNext(_ count: Int, errno code: Int32 = EIO) {
        failuresLeft = count
        failureErrno = code
    }

    /// Every transaction fails with `errno` for the next `seconds` of clock time.
    public func fail(forSeconds seconds: Double, errno code: Int32 = EIO) {
        failingUntil = time.nanoseconds + UInt64(seconds * 1e9)
        failureErrno = code
    }

    /// A power glitch: every register back to its reset value (powered down).
    public func resetToPowerDown() { resetRegisters() }

    /// The raw register file, bypassing the bus (for tests and dumps).
    public func peek(_ register: UInt8) -> UInt8 { registers[Int(register & 0x7F)] }

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
        try begin()
        counters.bytesRead += buffer.count
        var register = subAddress & 0x7F
        let increments = subAddress & 0x80 != 0
        for index in 0..<buffer.count {
            buffer[index] = read(register)
            if increments { register = (register &+ 1) & 0x7F }
        }
    }

    // MARK: Behaviour

    private func begin() throws {
        guard present else {
            counters.failedTransactions += 1
            throw BusError.noAnswer(path: location, address: 0x1C)
        }
        if let until = failingUntil {
            if time.nanoseconds < until {
                counters.failedTransactions += 1
                throw BusError.from(errno: failureErrno, path: location, address: 0x1C, operation: "transfer")
            }
            failingUntil = nil
        }
        if failuresLeft > 0 {
            failuresLeft -= 1
            counters.failedTransactions += 1
            throw BusError.from(errno: failureErrno, path: location, address: 0x1C, operation: "transfer")
        }
        counters.transactions += 1
        catchUp()
    }

    private func resetRegisters() {
        registers = [UInt8](repeating: 0, count: 128)
        registers[Int(Register.whoAmI)] = profile.whoAmI
        registers[Int(Register.ctrl1)] = 0x07
        phaseStart = nil
        bootEndsAt = nil
    }

    private var ctrl1: UInt8 { registers[Int(Register.ctrl1)] }
    private var poweredUp: Bool { ctrl1 & 0x40 != 0 }
    private var rateHertz: Double { ctrl1 & 0x80 != 0 ? 400 : 100 }
    private var gPerDigit: Double { ctrl1 & 0x20 != 0 ? 0.072 : 0.018 }
    /// Actual sample period, including the chip's rate error.
    public var periodNanoseconds: UInt64 { UInt64(1e9 / (rateHertz * (1 + imperfections.rateError))) }

    private func read(_ register: UInt8) -> UInt8 {
        switch register {
        case Register.ctrl2:
            if let end = bootEndsAt, time.nanoseconds >= end {
                registers[Int(Register.ctrl2)] &= ~0x40  // BOOT clears itself when done
                bootEndsAt = nil
            }
            return registers[Int(register)]
        case Register.hpFilterReset:
            highPassReference = motion.specificForce(at: motionTime(time.nanoseconds))
            return 0
        case Register.outX, Register.outY, Register.outZ:
            // Reading an axis clears its data-ready and overrun bits.
            let bit: UInt8 = register == Register.outX ? 0x01 : register == Register.outY ? 0x02 : 0x04
            var status = registers[Int(Register.status)] & ~(bit | bit << 4)
            status = status & 0x07 != 0 ? status | 0x08 : status & ~0x08
            status = status & 0x70 != 0 ? status | 0x80 : status & ~0x80
            registers[Int(Register.status)] = status
            return registers[Int(register)]
        case 0x31, 0x35, 0x39:
            return 0  // interrupt sources: nothing latched (events are not modelled)
        default:
            return registers[Int(register)]
        }
    }

    private func write(_ register: UInt8, _ value: UInt8) {
        guard Register.readWrite.contains(register) else {
            ignoredWrites.append((register, value))
            return
        }
        let before = registers[Int(register)]
        registers[Int(register)] = value
        switch register {
        case Register.ctrl1:
            let wasOn = before & 0x40 != 0, isOn = value & 0x40 != 0
            if isOn && (!wasOn || (before ^ value) & 0x80 != 0) {
                // Power-up or a new rate: a new phase, and 3/ODR of invalid data.
                phaseStart = time.nanoseconds
                lastSampleIndex = 0
            } else if !isOn {
                phaseStart = nil
            }
        case Register.ctrl2:
            if value & 0x40 != 0 && before & 0x40 == 0 {
                bootEndsAt = time.nanoseconds + UInt64(profile.bootMilliseconds / 2) * 1_000_000
            }
        default:
            break
        }
    }

    private func motionTime(_ nanoseconds: UInt64) -> Double {
        Double(nanoseconds &- motionEpoch) / 1e9
    }

    /// Produces every sample whose instant has passed since the last
    /// transaction. Only the newest survives in the output registers; the
    /// others are counted as lost, and overrun bits tell the reader.
    private func catchUp() {
        guard poweredUp, let start = phaseStart, !dataReadyStuck else { return }
        let period = periodNanoseconds
        let index = (time.nanoseconds - start) / period
        let firstValid = UInt64(profile.turnOnPeriods)
        guard index >= firstValid, index > lastSampleIndex else { return }
        let fresh = Int(index - max(lastSampleIndex, firstValid - 1))
        lastSampleIndex = index

        let enabled = ctrl1 & 0x07
        var status = registers[Int(Register.status)]
        let unread = status & 0x07 & enabled
        counters.samplesProduced += fresh
        counters.samplesLost += fresh - 1 + (unread != 0 ? 1 : 0)
        let overrun = fresh > 1 ? enabled : unread
        status |= enabled | overrun << 4
        status = status & 0x07 != 0 ? status | 0x08 : status
        status = status & 0x70 != 0 ? status | 0x80 : status
        registers[Int(Register.status)] = status

        let instant = start + index * period
        let digits = convert(motion.specificForce(at: motionTime(instant)))
        if enabled & 1 != 0 { registers[Int(Register.outX)] = UInt8(bitPattern: digits.x) }
        if enabled & 2 != 0 { registers[Int(Register.outY)] = UInt8(bitPattern: digits.y) }
        if enabled & 4 != 0 { registers[Int(Register.outZ)] = UInt8(bitPattern: digits.z) }
        if !imperfections.stuckOutputs.isEmpty {
            for (index, axis) in Axis.allCases.enumerated() {
                if let stuck = imperfections.stuckOutputs[axis] { registers[Int(Register.outX) + 2 * index] = UInt8(bitPattern: stuck) }
            }
        }
    }

    /// Specific force in g to output digits, as the chip does it.
    private func convert(_ felt: Vector3) -> (x: Int8, y: Int8, z: Int8) {
        var g = felt
        let selfTest = ctrl1 & 0x18
        if selfTest == 0x10 { g += imperfections.selfTestForce }
        if selfTest == 0x08 { g = g - imperfections.selfTestForce }
        if registers[Int(Register.ctrl2)] & 0x10 != 0 {
            // FDS: the output is high-passed. First-order filter with the
            // cut-off HP_coeff selects: ODR / (6 × 8·2^k).
            let k = Double(8 << Int(registers[Int(Register.ctrl2)] & 0x03))
            let alpha = 1 / (6 * k / (2 * .pi) + 1)
            highPassReference = highPassReference + (g - highPassReference) * alpha
            g = g - highPassReference
        }
        var chip = (g.scaled(by: Vector3(1, 1, 1) + imperfections.sensitivityError) + imperfections.offset) / gPerDigit
        if imperfections.noise > 0 {
            let sigma = imperfections.noise / gPerDigit
            chip += Vector3(random.gaussian(), random.gaussian(), random.gaussian()) * sigma
        }
        func digit(_ v: Double) -> Int8 { Int8(min(max(v.rounded(), -128), 127)) }
        return (digit(chip.x), digit(chip.y), digit(chip.z))
    }
}
