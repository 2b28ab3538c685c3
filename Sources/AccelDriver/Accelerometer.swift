// SPDX-License-Identifier: Apache-2.0
import AccelCore
import AccelParts
/// Drives one LIS302DL-class chip through any `RegisterBus`: identify it,
/// write and verify its whole configuration, read samples in one burst,
/// turn digits into calibrated g in the board's frame, self-test, boot and
/// power down. The part's particulars all come from its `ChipProfile`.
///
/// Not thread-safe: the owner (the sampler, a CLI command) confines it.
public final class Accelerometer {
    public let bus: RegisterBus
    public let profile: ChipProfile
    public internal(set) var configuration: DeviceConfiguration?
    /// Applied first, in the chip's axes.
    @exclusivity(unchecked) public var calibration: Calibration
    /// Applied after calibration: chip axes to board axes.
    @exclusivity(unchecked) public var mountMatrix: MountMatrix
    let time: TimeSource
    @exclusivity(unchecked) private var burst: [UInt8]

    /// The part's FIFO watermark as configured; 0 when the FIFO is off.
    public var fifoWatermark: Int { profile.fifo == nil ? 0 : configuration?.fifoWatermark ?? 0 }
    @exclusivity(unchecked) var fifoBytes: [UInt8] = []
    /// A tagged FIFO's gyroscope word whose accelerometer word has not
    /// been read yet, and the last rate read (for an accelerometer word
    /// whose gyroscope word an overflow took).
    @exclusivity(unchecked) var pendingRotation: Counts?
    @exclusivity(unchecked) var lastRotation: Counts?
    /// Entries of a partial pattern to drop before the next FIFO read.
    @exclusivity(unchecked) var fifoPartial = 0

    /// Reads WHO_AM_I and decides the part. With `part` named, the chip
    /// must answer that part's WHO_AM_I. Without it, the WHO_AM_I must
    /// belong to exactly one part: acceld never guesses a scale.
    public static func identify(_ bus: RegisterBus, part: ChipProfile? = nil) throws -> ChipProfile {
        if let part {
            let id = try bus.readRegister(part.whoAmIRegister)
            guard id == part.whoAmI else {
                throw DriverError.wrongPart(location: bus.location, part: part.name, expected: part.whoAmI, found: id)
            }
            return part
        }
        let id = try bus.readRegister(0x0F)  // every part of the family keeps WHO_AM_I here
        let candidates = ChipProfile.candidates(whoAmI: id)
        switch candidates.count {
        case 1: return candidates[0]
        case 0: throw DriverError.unknownChip(location: bus.location, whoAmI: id, suggestion: ChipProfile.relatives[id])
        default: throw DriverError.ambiguousPart(location: bus.location, whoAmI: id, candidates: candidates.map(\.name))
        }
    }

    /// - Parameter part: the part a person named (`part =`, `--part`);
    ///   nil identifies it by WHO_AM_I alone.
    public init(bus: RegisterBus, time: TimeSource, part: ChipProfile? = nil,
                calibration: Calibration = .identity, mountMatrix: MountMatrix = .identity) throws {
        self.bus = bus
        self.time = time
        self.profile = try Accelerometer.identify(bus, part: part)
        self.sensitivity = self.profile.sensitivity(fullScale: self.profile.ranges[0].fullScale, mode: self.profile.modes[0])!
        self.resolutionBits = self.profile.modes[0].resolutionBits
        self.calibration = calibration
        self.mountMatrix = mountMatrix
        self.burst = [UInt8](repeating: 0, count: self.profile.burstLength)
    }

    /// Throws `wrongPart` when the chip answering now is not the part this
    /// driver was made for (a board swapped while the daemon ran).
    public func verifyIdentity() throws {
        _ = try Accelerometer.identify(bus, part: profile)
    }

    // MARK: Configuration

    /// The part's smallest range at `rate` (unless said, its rate nearest
    /// 100 Hz: `ChipProfile.automaticRate`) in its first mode: what the
    /// tools use when a person names no setting.
    public func defaultConfiguration(rate: Int? = nil) -> DeviceConfiguration {
        let rates = profile.modes[0].rates.map(\.hertz)
        let wanted = rate ?? profile.automaticRate()!
        return DeviceConfiguration(range: profile.ranges[0].fullScale, rate: rates.contains(wanted) ? wanted : rates.first { $0 >= wanted } ?? rates.last!)
    }

    /// The part's mode for `configuration`, or the error that lists the modes.
    public func mode(for configuration: DeviceConfiguration) throws -> ChipProfile.Mode {
        guard let mode = profile.mode(named: configuration.mode) else {
            throw DriverError.unsupportedMode(configuration.mode ?? "", part: profile.name, available: profile.modes.map(\.name))
        }
        return mode
    }

    /// The control registers and values that realise `configuration`.
    /// Range, rate and mode are checked against the part's own table.
    public func registerValues(for configuration: DeviceConfiguration) throws -> [(register: UInt8, value: UInt8)] {
        let mode = try mode(for: configuration)
        guard let range = profile.range(fullScale: configuration.range) else {
            throw DriverError.unsupportedRange(configuration.range, part: profile.name, available: profile.ranges.map(\.fullScale))
        }
        guard let rate = mode.rates.first(where: { $0.hertz == configuration.rate }) else {
            throw DriverError.unsupportedRate(configuration.rate, part: profile.name, mode: mode.name, available: mode.rates.map(\.hertz))
        }
        var settings = mode.settings + [ChipProfile.Setting(profile.rangeField, range.code), ChipProfile.Setting(profile.rateField, rate.code)]
        if let gyroscope = profile.gyroscope {
            // The gyroscope at the accelerometer's rate, over its widest range.
            settings += [ChipProfile.Setting(gyroscope.rateField, rate.code), ChipProfile.Setting(gyroscope.rangeField, gyroscope.ranges[0].code)]
        }
        if let fifo = profile.fifo { settings += fifoSettings(fifo, watermark: configuration.fifoWatermark, rate: rate) }
        settings += profile.wakeUp?.filterSettings ?? []
        if let wake = configuration.wakeUp { settings += try wakeUpSettings(wake, range: configuration.range) }
        if let pin = configuration.interruptPin { settings += try interruptSettings(configuration.interruptSignal, on: pin) }
        return profile.controlBaseline.map { entry in
            (entry.register, settings.filter { $0.field.register == entry.register }.reduce(entry.value) { $1.field.set($1.value, in: $0) })
        }
    }

    /// The settings that route `signal` to `pin`, active high.
    private func interruptSettings(_ signal: ChipProfile.InterruptSignal, on pin: ChipProfile.InterruptPin) throws -> [ChipProfile.Setting] {
        guard let pins = profile.interruptPins, let route = pins.route(signal, to: pin) else {
            let other = ChipProfile.InterruptPin.allCases.filter { $0 != pin && profile.interruptPins?.route(signal, to: $0) != nil }
            throw DriverError.interruptNotRoutable(part: profile.name, pin: pin.label, signal: signal.rawValue, alternatives: other.map(\.label))
        }
        return route + [pins.activeHigh]
    }

    /// Writes the whole configuration (never trusting what a previous run
    /// left: the chip keeps its registers across a host reboot), reads every
    /// register back, then waits the turn-on time so the next sample is valid.
    public func configure(_ configuration: DeviceConfiguration, waitingForTurnOn: Bool = true) throws {
        let values = try registerValues(for: configuration)
        for (register, value) in values { try bus.writeRegister(register, value) }
        for (register, value) in values {
            let readBack = try bus.readRegister(register)
            if readBack != value {
                throw DriverError.configurationMismatch(location: bus.location, register: register, wrote: value, readBack: readBack)
            }
        }
        try adopt(configuration)
        if waitingForTurnOn { time.sleep(nanoseconds: turnOnNanoseconds) }
    }

    /// How long after `configure` the chip's samples are valid (the
    /// datasheet's turn-on time, in output periods): a caller that did not
    /// wait must not read before.
    public var turnOnNanoseconds: UInt64 { UInt64(profile.turnOnPeriods) * outputPeriodNanoseconds }

    /// What the chip now runs: the scale of its output follows.
    func adopt(_ configuration: DeviceConfiguration) throws {
        self.configuration = configuration
        activeMode = try mode(for: configuration)
        sensitivity = profile.sensitivity(fullScale: configuration.range, mode: activeMode)!
        resolutionBits = activeMode.resolutionBits
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

    /// The mode the chip runs in (the part's first until configured).
    public private(set) lazy var activeMode: ChipProfile.Mode = profile.modes[0]

    // Kept, not worked out per sample: both are read for every sample, and
    // the table lookups behind them cost replay a third of its speed.
    /// g per digit at the configured range and mode.
    @exclusivity(unchecked) public private(set) var sensitivity: Double
    /// Output bits per axis in the configured mode.
    @exclusivity(unchecked) public private(set) var resolutionBits: Int

    /// "LIS3DH at /dev/i2c-1 at 0x18, ±2 g, 100 Hz, high-resolution mode (12-bit)".
    public func describe() -> String {
        let range = configuration.map { "±\($0.range) g, \($0.rate) Hz, " } ?? ""
        return "\(profile.name) at \(bus.location), \(range)\(activeMode.name) mode (\(resolutionBits)-bit)"
    }


    /// One output data period at the configured rate.
    public var outputPeriodNanoseconds: UInt64 {
        UInt64(1e9 / Double(configuration?.rate ?? activeMode.rates[0].hertz))
    }

    // MARK: Samples

    /// One transaction: STATUS and the three outputs in a single
    /// auto-increment burst (7 bytes from 0x27 on the LIS302DL).
    public func read() throws -> Reading {
        try burst.withUnsafeMutableBytes { buffer in
            try bus.readBlock(from: profile.burstAddress(profile.statusRegister), into: buffer)
        }
        return decode(burst)
    }

    /// Status byte, then one little-endian 16-bit slot per axis holding a
    /// left-justified two's-complement value of `resolutionBits` bits (and
    /// the gyroscope's three, on a six-axis part).
    public func decode(_ bytes: [UInt8]) -> Reading {
        guard let gyroscope = profile.gyroscope else {
            return Reading(status: Status(rawValue: bytes[0]), counts: counts(bytes, at: profile.accelerometerOffset))
        }
        // XLDA in the family's terms: every axis ready; no overrun bit.
        let ready = bytes[0] & profile.statusBits.dataReady != 0
        return Reading(status: ready ? [.dataReady, .xDataReady, .yDataReady, .zDataReady] : [],
                       counts: counts(bytes, at: profile.accelerometerOffset), rotation: counts(bytes, at: gyroscope.dataOffset))
    }

    /// Three little-endian, left-justified 16-bit slots from `offset`.
    func counts(_ bytes: [UInt8], at offset: Int) -> Counts {
        let shift = 16 - resolutionBits
        func axis(_ i: Int) -> Int {
            Int(Int16(bitPattern: UInt16(bytes[offset + 1 + 2 * i]) << 8 | UInt16(bytes[offset + 2 * i])) >> shift)
        }
        return Counts(axis(0), axis(1), axis(2))
    }

    /// The gyroscope's digits to rad/s in the board's axes: its widest
    /// range's sensitivity, then the mount matrix (the offset is the
    /// fusion's to learn, or calibration's).
    public func rotationRate(_ counts: Counts) -> Vector3? {
        guard let gyroscope = profile.gyroscope else { return nil }
        return mountMatrix.apply(counts.vector * (gyroscope.ranges[0].dpsPerDigit * .pi / 180))
    }

    /// The gyroscope's full scale in rad/s (nil without one): a rate at it saturated.
    public var rotationRange: Double? { profile.gyroscope.map { Double($0.ranges[0].dps) * .pi / 180 } }

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
        try nextStampedReading(periods: periods).reading
    }

    /// `nextReading`, with the time the read that found the sample began:
    /// the sample was made before it began, or during the transfer. A time
    /// taken after returning could be late by however long this thread was
    /// preempted in between.
    public func nextStampedReading(periods: Int = 10) throws -> (reading: Reading, began: UInt64) {
        let step = max(outputPeriodNanoseconds / 4, 1)
        for _ in 0..<(periods * 4) {
            let began = time.nanoseconds
            let reading = try read()
            if reading.status.contains(.dataReady) { return (reading, began) }
            time.sleep(nanoseconds: step)
        }
        throw DriverError.noData(location: bus.location, waitedMilliseconds: Int(UInt64(periods) * outputPeriodNanoseconds / 1_000_000))
    }
}
