// SPDX-License-Identifier: Apache-2.0
import AccelCore
import AccelParts
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A part of the family at register level, behaving as its datasheet says,
/// on an injected clock. Everything part-specific comes from its
/// `ChipProfile`, exactly as in the driver. It implements `RegisterBus`, so
/// the driver, the sampler and the tools run on it as on a real adapter.
///
/// Modelled: reset values (powered down); WHO_AM_I; writes to read-only or
/// reserved registers ignored and recorded; no data while powered down and
/// none for the turn-on time after power-up; samples at the ODR (with a
/// configurable rate error); STATUS data-ready and overrun bits, cleared per
/// axis as its high output byte is read; auto-increment by the sub-address
/// bit or by the part's control bit; outputs left-justified in 16-bit slots
/// (the LIS302DL's dummies read 0); quantisation to the mode's resolution
/// and the range's digit, clipping at full scale; zero-g offset,
/// sensitivity error and seeded noise; self-test deflection; FDS high-pass
/// output; BOOT clearing itself; the FIFO in stream mode (32 deep, the
/// oldest overwritten when full, FIFO_SRC's level, overrun and empty flags,
/// the auto-increment wrapping OUT_Z_H to OUT_X_L); an adapter's longest
/// read; fault injection; transaction counters; a six-axis part's
/// gyroscope (ChipModel+SixAxis.swift) and FIFO (ChipModel+FIFO.swift).
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
        /// Force the self-test actuator adds, in g; nil is the middle of
        /// the part's published limits (20 digits' worth on the LIS302DL).
        public var selfTestForce: Vector3?
        /// Axes whose output is stuck at a value in digits (a broken part).
        public var stuckOutputs: [Axis: Int] = [:]
        /// The gyroscope's zero-rate offset, dps per axis (datasheet: ±1 dps
        /// typical on the LSM6DSO), and its rms noise per sample, dps.
        public var gyroscopeOffset = Vector3.zero
        public var gyroscopeNoise = 0.0
        /// The rate the gyroscope's self-test adds, dps; nil is the middle
        /// of the published limits.
        public var gyroscopeSelfTestRate: Vector3?
        public var seed: UInt64 = 0x1C
        public init() {}

        /// What `--simulate` plays, in acceld and in accelctl alike, so
        /// that both show one motion the same: a chip as a real one reads,
        /// with noise, an offset, a clock 1 % off, and for a six-axis part
        /// a gyroscope with an offset within the LSM6DSO's typical ±1 dps
        /// and its noise at 104 Hz (the fusion learns the first).
        public static var board: Imperfections {
            var imperfections = Imperfections()
            imperfections.noise = 0.004
            imperfections.offset = Vector3(0.012, -0.008, 0.018)
            imperfections.rateError = 0.01
            imperfections.gyroscopeOffset = Vector3(0.6, -0.4, 0.3)
            imperfections.gyroscopeNoise = 0.03
            return imperfections
        }
    }

    /// Transaction counters, for tests and the bus-efficiency benchmark.
    public struct Counters: Sendable, Equatable {
        public var transactions = 0
        public var failedTransactions = 0
        public var bytesRead = 0
        public var bytesWritten = 0
        /// Samples the chip converted since power-up.
        public var samplesProduced = 0
        /// Samples overwritten before they were read (output registers or FIFO).
        public var samplesLost = 0
    }

    public let profile: ChipProfile
    /// The wake-up unit's SOURCE and REFERENCE registers, looked up once:
    /// every register read asks (`readWakeUpRegister`).
    let wakeUpRegisters: Set<UInt8>
    public var location: String
    public var motion: any MotionSource
    /// The longest read the modelled adapter allows in one transaction:
    /// set 32 to model an SMBus-only adapter such as i2c-stub.
    public var maximumReadLength = Int.max
    /// The modelled bus's clock, Hz, as a device tree would say it; nil: not said.
    public var clockFrequency: Int?
    // The properties marked @exclusivity(unchecked) are read and written on
    // every sample, only from the owner's queue and never re-entrantly:
    // their run-time exclusivity checks were 18 % of replay's instructions
    // (callgrind), for no protection the compiler's static checks lack.
    @exclusivity(unchecked) public var imperfections: Imperfections
    @exclusivity(unchecked) public internal(set) var counters = Counters()
    /// Writes the chip ignored (read-only or reserved registers), in order.
    public internal(set) var ignoredWrites: [(register: UInt8, value: UInt8)] = []

    let time: TimeSource
    /// The clock reading (ns) that is t = 0 for the motion source: the model's making.
    public let motionStart: UInt64
    @exclusivity(unchecked) var registers = [UInt8](repeating: 0, count: 128)
    let access: [ChipProfile.Register.Access?]
    var random: SeededRandom
    /// When the chip powered up (or the rate or mode changed): sample k is
    /// made at phaseStart + k periods, the first valid one at k = turn-on.
    @exclusivity(unchecked) var phaseStart: UInt64?
    @exclusivity(unchecked) var lastSampleIndex: UInt64 = 0
    @exclusivity(unchecked) var bootEndsAt: UInt64?
    /// The FDS high-pass filter's reference (a low-pass of the input).
    @exclusivity(unchecked) var highPassReference = Vector3.zero
    /// Stream-mode FIFO: each entry is one sample's six output bytes, or
    /// a six-axis FIFO's word (ChipModel+FIFO.swift).
    @exclusivity(unchecked) var fifo: FIFOEntries
    /// The tagged FIFO overwrote a word since its status was last read.
    @exclusivity(unchecked) var fifoOverrunLatched = false
    /// Where the pattern FIFO's oldest word sits in its pattern.
    @exclusivity(unchecked) var fifoHeadPosition = 0

    // Faults.
    @exclusivity(unchecked) private var failuresLeft = 0
    private var failureErrno: Int32 = EIO
    @exclusivity(unchecked) private var failingUntil: UInt64?
    /// False while the chip is "gone": every transaction is NACKed.
    @exclusivity(unchecked) public var present = true
    /// True to model a stuck converter: no new samples, ZYXDA never sets again.
    @exclusivity(unchecked) public var dataReadyStuck = false
    /// True to model a data-ready bit stuck at 1 (i2c-stub's STATUS is
    /// one): STATUS always says new data, whatever was read; the chip
    /// still converts at its ODR.
    @exclusivity(unchecked) public var dataReadyAlwaysSet = false
    /// Makes FIFO_SRC read this value instead of the truth (a glitch).
    @exclusivity(unchecked) public var fifoSourceOverride: UInt8?
    /// The rises of the INT pins a line watches (ChipModel+Interrupts.swift).
    var pinRises: [ChipProfile.InterruptPin: PinRises] = [:]
    /// The wake-up unit's filter, count and source (ChipModel+WakeUp.swift).
    var wakeUnit = WakeUnit()

    public init(profile: ChipProfile = .lis302dl, motion: any MotionSource = MotionScript.rest(), time: TimeSource,
                imperfections: Imperfections = Imperfections(), location: String? = nil) {
        self.profile = profile
        wakeUpRegisters = Set(profile.wakeUp.map { [$0.source] + [$0.filterReset].compactMap { $0 } } ?? [])
        self.motion = motion
        self.time = time
        self.imperfections = imperfections
        self.location = location ?? "chip model at \(hex(profile.addresses[0]))"
        self.motionStart = time.nanoseconds
        self.random = SeededRandom(seed: imperfections.seed)
        var access = [ChipProfile.Register.Access?](repeating: nil, count: 128)
        for register in profile.registers { access[Int(register.address)] = register.access }
        self.access = access
        self.derived = Derived(mode: profile.modes[0])
        fifo = FIFOEntries(entryBytes: profile.fifo?.entryBytes ?? ChipProfile.sampleBytes, capacity: profile.fifo?.depth ?? 0)
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

    /// Samples waiting in the FIFO.
    public var fifoLevel: Int { fifo.count / (profile.fifo?.entriesPerSample ?? 1) }

    // MARK: Behaviour

    func begin() throws {
        guard present else {
            counters.failedTransactions += 1
            throw BusError.noAnswer(path: location, address: profile.addresses[0])
        }
        if let until = failingUntil {
            if time.nanoseconds < until {
                counters.failedTransactions += 1
                throw BusError.from(errno: failureErrno, path: location, address: profile.addresses[0], operation: "transfer")
            }
            failingUntil = nil
        }
        if failuresLeft > 0 {
            failuresLeft -= 1
            counters.failedTransactions += 1
            throw BusError.from(errno: failureErrno, path: location, address: profile.addresses[0], operation: "transfer")
        }
        counters.transactions += 1
        catchUp()
    }

    private func resetRegisters() {
        registers = [UInt8](repeating: 0, count: 128)
        for register in profile.registers { registers[Int(register.address)] = register.reset }
        derive()
        phaseStart = nil
        bootEndsAt = nil
        fifo.removeAll()
        fifoOverrunLatched = false
        fifoHeadPosition = 0
    }

    func field(_ field: ChipProfile.Field) -> UInt8 { field.value(in: registers[Int(field.register)]) }

    /// What the control registers mean, worked out again only when one is
    /// written: replay reads these on every sample.
    struct Derived {
        var poweredUp = false
        var mode: ChipProfile.Mode
        var resolutionBits = 8
        var rateHertz = 0.0
        var gPerDigit = 0.0
        var fifoStreaming = false
        var highPassed = false
        var highPassK = 8.0
    }
    @exclusivity(unchecked) var derived: Derived
    var poweredUp: Bool { derived.poweredUp }
    var mode: ChipProfile.Mode { derived.mode }
    var rateHertz: Double { derived.rateHertz }
    var gPerDigit: Double { derived.gPerDigit }
    var fifoStreaming: Bool { derived.fifoStreaming }

    func derive() {
        let mode = profile.modes.first { $0.settings.allSatisfy { field($0.field) == $0.value } } ?? profile.modes[0]
        let rateCode = field(profile.rateField), rangeCode = field(profile.rangeField)
        let range = profile.ranges.first { $0.code == rangeCode } ?? profile.ranges[0]
        derived.mode = mode
        derived.resolutionBits = mode.resolutionBits
        derived.poweredUp = field(profile.powerField) != 0
        derived.rateHertz = Double(mode.rates.first { $0.code == rateCode }?.hertz ?? mode.rates[0].hertz)
        derived.gPerDigit = profile.sensitivity(fullScale: range.fullScale, mode: mode)!
        if let spec = profile.fifo {
            derived.fifoStreaming = spec.enable.map { field($0) != 0 } ?? true && field(spec.modeField) == spec.streamCode
        }
        if let (register, mask) = namedField("FDS") { derived.highPassed = registers[Int(register)] & mask != 0 }
        if let (register, mask) = namedField("HP_coeff") { derived.highPassK = Double(8 << Int(registers[Int(register)] & mask)) }
    }

    /// Actual sample period, including the chip's rate error.
    public var periodNanoseconds: UInt64 { UInt64(1e9 / (rateHertz * (1 + imperfections.rateError))) }

    func motionTime(_ nanoseconds: UInt64) -> Double {
        Double(nanoseconds &- motionStart) / 1e9
    }


    private func namedField(_ name: String) -> (UInt8, UInt8)? {
        for register in profile.registers {
            if let field = register.fields.first(where: { $0.name == name }) { return (register.address, field.mask) }
        }
        return nil
    }
}