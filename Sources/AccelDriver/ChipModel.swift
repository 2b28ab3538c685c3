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
    public private(set) var ignoredWrites: [(register: UInt8, value: UInt8)] = []

    let time: TimeSource
    /// The clock reading that is t = 0 for the motion source.
    private let motionEpoch: UInt64
    @exclusivity(unchecked) var registers = [UInt8](repeating: 0, count: 128)
    let access: [ChipProfile.Register.Access?]
    var random: SeededRandom
    /// When the chip powered up (or the rate or mode changed): sample k is
    /// made at phaseStart + k periods, the first valid one at k = turn-on.
    @exclusivity(unchecked) private(set) var phaseStart: UInt64?
    @exclusivity(unchecked) private(set) var lastSampleIndex: UInt64 = 0
    @exclusivity(unchecked) private var bootEndsAt: UInt64?
    /// The FDS high-pass filter's reference (a low-pass of the input).
    @exclusivity(unchecked) private var highPassReference = Vector3.zero
    /// Stream-mode FIFO: each entry is one sample's six output bytes, or
    /// a six-axis FIFO's word (ChipModel+FIFO.swift).
    @exclusivity(unchecked) var fifo: [[UInt8]] = []
    /// The tagged FIFO overwrote a word since its status was last read.
    @exclusivity(unchecked) var fifoOverrunLatched = false
    /// Where the pattern FIFO's oldest word sits in its pattern.
    @exclusivity(unchecked) var fifoHeadPosition = 0
    /// Bytes of the oldest FIFO sample already read in this transaction.
    @exclusivity(unchecked) private var fifoByte = 0

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
        self.motionEpoch = time.nanoseconds
        self.random = SeededRandom(seed: imperfections.seed)
        var access = [ChipProfile.Register.Access?](repeating: nil, count: 128)
        for register in profile.registers { access[Int(register.address)] = register.access }
        self.access = access
        self.derived = Derived(mode: profile.modes[0])
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

    // MARK: RegisterBus

    public func readRegister(_ subAddress: UInt8) throws -> UInt8 {
        try begin()
        counters.bytesRead += 1
        fifoByte = 0
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
        fifoByte = 0
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

    // MARK: Behaviour

    private func begin() throws {
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
    private struct Derived {
        var poweredUp = false
        var mode: ChipProfile.Mode
        var resolutionBits = 8
        var rateHertz = 0.0
        var gPerDigit = 0.0
        var fifoStreaming = false
        var highPassed = false
        var highPassK = 8.0
    }
    @exclusivity(unchecked) private var derived: Derived
    private var poweredUp: Bool { derived.poweredUp }
    private var mode: ChipProfile.Mode { derived.mode }
    private var rateHertz: Double { derived.rateHertz }
    private var gPerDigit: Double { derived.gPerDigit }
    private var fifoStreaming: Bool { derived.fifoStreaming }

    private func derive() {
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
        guard let oldest = fifo.first else { return registers[Int(register)] }
        if index == ChipProfile.sampleBytes - 1 {
            fifo.removeFirst()
            if fifo.isEmpty { registers[Int(profile.statusRegister)] = 0 }
        }
        return oldest[index]
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

    func motionTime(_ nanoseconds: UInt64) -> Double {
        Double(nanoseconds &- motionEpoch) / 1e9
    }

    /// Produces every sample whose instant has passed since the last
    /// transaction. Without the FIFO only the newest survives in the output
    /// registers, the others are counted as lost, and overrun bits tell the
    /// reader; with it, each is queued and only a full FIFO loses the oldest.
    func catchUp() {
        guard poweredUp, let start = phaseStart, !dataReadyStuck else { return }
        let index = (time.nanoseconds - start) / periodNanoseconds
        if !pinRises.isEmpty { noteRises(through: index) }
        makeSamples(through: index)
    }

    /// Makes the samples up to number `index` (counted from phaseStart).
    func makeSamples(through index: UInt64) {
        guard let start = phaseStart else { return }
        let period = periodNanoseconds
        let firstValid = UInt64(profile.turnOnPeriods)
        guard index >= firstValid, index > lastSampleIndex else { return }
        let previous = max(lastSampleIndex, firstValid - 1)
        let fresh = Int(index - previous)
        lastSampleIndex = index
        counters.samplesProduced += fresh
        if profile.wakeUp != nil { runWakeUp(from: previous + 1, through: index, start: start, period: period) }

        let status = profile.statusRegister
        if fifoStreaming, let spec = profile.fifo {
            // Only the newest the FIFO holds survive (in part, the oldest of
            // them, where a sample's words do not divide its depth); the
            // rest are made and lost.
            let kept = min(fresh, (spec.depth + spec.entriesPerSample - 1) / spec.entriesPerSample)
            counters.samplesLost += fresh - kept
            if kept < fresh { fifoOverrunLatched = true }
            for k in (fresh - kept + 1)...fresh { queue(sample: previous + UInt64(k), at: start + (previous + UInt64(k)) * period, spec) }
            if spec.layout == .outputRegisters {
                registers[Int(status)] = 0x0F | (fifo.count == spec.depth ? 0xF0 : 0)
                return
            }
        }

        if let gyroscope = profile.gyroscope {
            // No overrun bit: an unread sample is simply replaced (lost,
            // unless the FIFO has it too).
            let unread = registers[Int(status)] & profile.statusBits.dataReady
            if !fifoStreaming { counters.samplesLost += fresh - 1 + (unread != 0 ? 1 : 0) }
            registers[Int(status)] |= profile.statusBits.dataReady | profile.statusBits.gyroscopeReady
            let instant = start + index * period
            store(outputWords(at: instant), at: Int(status) + profile.accelerometerOffset)
            store(gyroscopeWords(at: instant, gyroscope), at: Int(status) + gyroscope.dataOffset)
            return
        }
        var statusBits = registers[Int(status)]
        let unread = statusBits & 0x07
        counters.samplesLost += fresh - 1 + (unread != 0 ? 1 : 0)
        let overrun = fresh > 1 ? 0x07 : unread
        statusBits |= 0x07 | overrun << 4
        statusBits |= 0x08
        statusBits = statusBits & 0x70 != 0 ? statusBits | 0x80 : statusBits
        registers[Int(status)] = statusBits
        store(outputWords(at: start + index * period), at: Int(status) + 1)
    }

    /// Three 16-bit outputs, little-endian, from register `first`.
    func store(_ words: (UInt16, UInt16, UInt16), at first: Int) {
        registers[first] = UInt8(words.0 & 0xFF); registers[first + 1] = UInt8(words.0 >> 8)
        registers[first + 2] = UInt8(words.1 & 0xFF); registers[first + 3] = UInt8(words.1 >> 8)
        registers[first + 4] = UInt8(words.2 & 0xFF); registers[first + 5] = UInt8(words.2 >> 8)
    }

    /// The three left-justified output words of the sample made at
    /// `instant` (no allocation: replay makes millions of these).
    func outputWords(at instant: UInt64) -> (UInt16, UInt16, UInt16) {
        var digits = convert(motion.specificForce(at: motionTime(instant)))
        if !imperfections.stuckOutputs.isEmpty {
            for (axis, stuck) in imperfections.stuckOutputs { digits[axis] = Double(stuck) }
        }
        let shift = 16 - derived.resolutionBits
        func word(_ value: Double) -> UInt16 { UInt16(bitPattern: Int16(truncatingIfNeeded: Int(value) << shift)) }
        return (word(digits.x), word(digits.y), word(digits.z))
    }

    /// Specific force in g to output digits, as the chip does it.
    private func convert(_ felt: Vector3) -> Vector3 {
        var g = felt
        if let test = profile.selfTest {
            let code = field(test.field)
            if code == test.code { g += selfTestForce(test) }
            else if code != 0 { g = g - selfTestForce(test) }
        }
        if derived.highPassed {
            // FDS: the output is high-passed. First-order filter with the
            // LIS302DL's cut-off ODR / (6 × 8·2^k), k from HP_coeff.
            let k = derived.highPassK
            let alpha = 1 / (6 * k / (2 * .pi) + 1)
            highPassReference = highPassReference + (g - highPassReference) * alpha
            g = g - highPassReference
        }
        let sensitivity = gPerDigit
        var chip = (g.scaled(by: Vector3(1, 1, 1) + imperfections.sensitivityError) + imperfections.offset) / sensitivity
        if imperfections.noise > 0 {
            let sigma = imperfections.noise / sensitivity
            chip += Vector3(random.gaussian(), random.gaussian(), random.gaussian()) * sigma
        }
        let limit = Double(1 << (derived.resolutionBits - 1))
        func digit(_ v: Double) -> Double { min(max(v.rounded(), -limit), limit - 1) }
        return Vector3(digit(chip.x), digit(chip.y), digit(chip.z))
    }

    /// The actuator's force: as set, or the middle of the published limits
    /// in the test's own conditions (smallest range, the test's mode).
    private func selfTestForce(_ test: ChipProfile.SelfTest) -> Vector3 {
        if let force = imperfections.selfTestForce { return force }
        let mode = profile.mode(named: test.mode)!
        let sensitivity = profile.sensitivity(fullScale: profile.ranges[0].fullScale, mode: mode)!
        // Whole digits, so that the deflection is exact whatever the rounding.
        func middle(_ limits: ClosedRange<Int>) -> Double { Double((limits.lowerBound + limits.upperBound) / 2) * sensitivity }
        return Vector3(middle(test.x), middle(test.y), middle(test.z))
    }

    private func namedField(_ name: String) -> (UInt8, UInt8)? {
        for register in profile.registers {
            if let field = register.fields.first(where: { $0.name == name }) { return (register.address, field.mask) }
        }
        return nil
    }
}
