// SPDX-License-Identifier: Apache-2.0
/// Drives one LIS302DL-class chip through any `RegisterBus`: identify it,
/// write and verify its whole configuration, read samples in one burst,
/// turn digits into calibrated g in the board's frame, self-test, boot and
/// power down. The part's particulars all come from its `ChipProfile`.
///
/// Not thread-safe: the owner (the sampler, a CLI command) confines it.
public final class Accelerometer {
    public let bus: RegisterBus
    public let profile: ChipProfile
    public private(set) var configuration: DeviceConfiguration?
    /// Applied first, in the chip's axes.
    @exclusivity(unchecked) public var calibration: Calibration
    /// Applied after calibration: chip axes to board axes.
    @exclusivity(unchecked) public var mountMatrix: MountMatrix
    private let time: TimeSource
    @exclusivity(unchecked) private var burst: [UInt8]

    /// Reads WHO_AM_I and finds the matching profile.
    public static func identify(_ bus: RegisterBus, profiles: [ChipProfile] = ChipProfile.supported) throws -> ChipProfile {
        let whoAmIRegisters = Set(profiles.map(\.whoAmIRegister))
        var lastID: UInt8 = 0
        for register in whoAmIRegisters.sorted() {
            let id = try bus.readRegister(register)
            if let profile = profiles.first(where: { $0.whoAmIRegister == register && $0.whoAmI == id }) { return profile }
            lastID = id
        }
        throw DriverError.unknownChip(location: bus.location, whoAmI: lastID, suggestion: ChipProfile.relatives[lastID])
    }

    /// - Parameter profile: skip identification and trust this profile.
    public init(bus: RegisterBus, time: TimeSource, profile: ChipProfile? = nil,
                calibration: Calibration = .identity, mountMatrix: MountMatrix = .identity) throws {
        self.bus = bus
        self.time = time
        self.profile = try profile ?? Accelerometer.identify(bus)
        self.calibration = calibration
        self.mountMatrix = mountMatrix
        self.burst = [UInt8](repeating: 0, count: self.profile.burstLength)
    }

    // MARK: Configuration

    /// The control registers and values that realise `configuration`.
    public func registerValues(for configuration: DeviceConfiguration) throws -> [(register: UInt8, value: UInt8)] {
        guard let range = profile.range(fullScale: configuration.range) else {
            throw DriverError.unsupportedRange(configuration.range, available: profile.ranges.map(\.fullScale))
        }
        guard let rate = profile.rate(hertz: configuration.rate) else {
            throw DriverError.unsupportedRate(configuration.rate, available: profile.rates.map(\.hertz))
        }
        return profile.controlBaseline.map { entry in
            var value = entry.value
            if entry.register == profile.rangeField.register { value = value & ~profile.rangeField.mask | profile.rangeField.bits(range.code) }
            if entry.register == profile.rateField.register { value = value & ~profile.rateField.mask | profile.rateField.bits(rate.code) }
            return (entry.register, value)
        }
    }

    /// Writes the whole configuration (never trusting what a previous run
    /// left: the chip keeps its registers across a host reboot), reads every
    /// register back, then waits the turn-on time so the next sample is valid.
    public func configure(_ configuration: DeviceConfiguration) throws {
        let values = try registerValues(for: configuration)
        for (register, value) in values { try bus.writeRegister(register, value) }
        for (register, value) in values {
            let readBack = try bus.readRegister(register)
            if readBack != value {
                throw DriverError.configurationMismatch(location: bus.location, register: register, wrote: value, readBack: readBack)
            }
        }
        self.configuration = configuration
        time.sleep(nanoseconds: UInt64(profile.turnOnPeriods) * outputPeriodNanoseconds)
    }

    /// Reads the control registers back and compares them with what
    /// `configure` wrote. False means the chip lost its configuration (a
    /// power glitch resets it to power-down): configure it again.
    public func configurationIsIntact() throws -> Bool {
        guard let configuration else { return false }
        for (register, value) in try registerValues(for: configuration) where try bus.readRegister(register) != value {
            return false
        }
        return true
    }

    public var sensitivity: Double {
        profile.range(fullScale: configuration?.range ?? profile.ranges[0].fullScale)!.gPerDigit
    }

    /// One output data period at the configured rate.
    public var outputPeriodNanoseconds: UInt64 {
        UInt64(1e9 / Double(configuration?.rate ?? profile.rates[0].hertz))
    }

    // MARK: Samples

    /// One transaction: STATUS and the three outputs in a single
    /// auto-increment burst (7 bytes from 0x27 on the LIS302DL).
    public func read() throws -> Reading {
        try burst.withUnsafeMutableBytes { buffer in
            try bus.readBlock(from: profile.statusRegister | profile.autoIncrement, into: buffer)
        }
        return decode(burst)
    }

    /// Status byte, then one little-endian 16-bit slot per axis holding a
    /// left-justified two's-complement value of `resolutionBits` bits.
    public func decode(_ bytes: [UInt8]) -> Reading {
        let shift = 16 - profile.resolutionBits
        func axis(_ i: Int) -> Int {
            Int(Int16(bitPattern: UInt16(bytes[2 + 2 * i]) << 8 | UInt16(bytes[1 + 2 * i])) >> shift)
        }
        return Reading(status: Status(rawValue: bytes[0]), counts: Counts(axis(0), axis(1), axis(2)))
    }

    /// Digits to g in the chip's axes, uncalibrated.
    public func chipAcceleration(_ counts: Counts) -> Vector3 { counts.vector * sensitivity }

    /// Digits to calibrated g in the board's axes: sensitivity, then the
    /// per-axis calibration (it was measured in the chip's axes), then the
    /// mount matrix.
    public func acceleration(_ counts: Counts) -> Vector3 {
        mountMatrix.apply(calibration.apply(chipAcceleration(counts)))
    }

    /// Waits for a fresh sample (ZYXDA) and returns it, polling four times
    /// per output period; gives up after `periods` periods.
    public func nextReading(periods: Int = 10) throws -> Reading {
        let step = max(outputPeriodNanoseconds / 4, 1)
        for _ in 0..<(periods * 4) {
            let reading = try read()
            if reading.status.contains(.dataReady) { return reading }
            time.sleep(nanoseconds: step)
        }
        throw DriverError.noData(location: bus.location, waitedMilliseconds: Int(UInt64(periods) * outputPeriodNanoseconds / 1_000_000))
    }

    // MARK: Maintenance

    /// Reloads the factory trim (BOOT) and waits for the bit to clear.
    public func boot() throws {
        let field = profile.bootField
        let current = try bus.readRegister(field.register)
        try bus.writeRegister(field.register, current | field.mask)
        let deadline = time.nanoseconds + UInt64(profile.bootMilliseconds) * 2_000_000
        repeat {
            time.sleep(nanoseconds: 1_000_000)
            if try bus.readRegister(field.register) & field.mask == 0 { return }
        } while time.nanoseconds < deadline
        throw DriverError.bootDidNotFinish(location: bus.location, milliseconds: profile.bootMilliseconds * 2)
    }

    /// Clears PD: the chip stops converting and draws microamps.
    public func powerDown() throws {
        let field = profile.powerField
        let current = try bus.readRegister(field.register)
        try bus.writeRegister(field.register, current & ~field.mask)
        configuration = nil
    }

    /// Runs the datasheet's self-test: average the outputs, set STP, wait
    /// 3/ODR, average again, restore, wait. Configures ±2 g / 100 Hz first if
    /// the chip was not configured. At ranges above the smallest the limits
    /// are scaled down and the verdict is advisory (none are published).
    public func selfTest(samplesPerPhase: Int = 5) throws -> SelfTestReport {
        if configuration == nil { try configure(DeviceConfiguration(range: profile.ranges[0].fullScale, rate: profile.rates[0].hertz)) }
        let values = try registerValues(for: configuration!)
        let control = values.first { $0.register == profile.selfTestField.register }!.value
        let settle = UInt64(profile.turnOnPeriods) * outputPeriodNanoseconds

        func average() throws -> Vector3 {
            _ = try nextReading()  // discard: it may straddle the change
            var sum = Vector3.zero
            for _ in 0..<samplesPerPhase { sum += try nextReading().counts.vector }
            return sum / Double(samplesPerPhase)
        }

        let normal = try average()
        try bus.writeRegister(profile.selfTestField.register, control | profile.selfTestField.mask)
        time.sleep(nanoseconds: settle)
        let deflected: Vector3
        do { deflected = try average() } catch {
            try? bus.writeRegister(profile.selfTestField.register, control)
            throw error
        }
        try bus.writeRegister(profile.selfTestField.register, control)
        time.sleep(nanoseconds: settle)

        let ratio = profile.ranges[0].gPerDigit / sensitivity
        let delta = deflected - normal
        let axes = Axis.allCases.map { axis -> SelfTestReport.AxisResult in
            let published = profile.selfTestLimits[axis]
            let low = Double(published.lowerBound) * ratio
            let high = Double(published.upperBound) * ratio
            return SelfTestReport.AxisResult(axis: axis, normal: normal[axis], selfTest: deflected[axis],
                                             delta: delta[axis], limits: low...high)
        }
        return SelfTestReport(part: profile.name, range: configuration!.range, axes: axes,
                              advisory: configuration!.range != profile.ranges[0].fullScale)
    }
}
