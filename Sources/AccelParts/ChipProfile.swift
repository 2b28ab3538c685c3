// SPDX-License-Identifier: Apache-2.0
import AccelCore
/// Everything that differs between parts of the family, as data: the
/// driver and the chip model have no per-part branches (the kernel's
/// st_accel settings table is the model). Adding a part is adding an entry
/// in ChipProfile+Parts.swift and a test. docs/DRIVER.md lists the parts
/// and where each fact comes from.
public struct ChipProfile: Sendable {
    /// A bit field inside one register.
    public struct Field: Sendable, Equatable {
        public let register: UInt8
        public let mask: UInt8
        public init(_ register: UInt8, mask: UInt8) {
            self.register = register
            self.mask = mask
        }
        /// `value` (unshifted) placed into the field.
        public func bits(_ value: UInt8) -> UInt8 { (value << UInt8(mask.trailingZeroBitCount)) & mask }
        public func value(in byte: UInt8) -> UInt8 { (byte & mask) >> UInt8(mask.trailingZeroBitCount) }
        /// `byte` with this field replaced by `value`.
        public func set(_ value: UInt8, in byte: UInt8) -> UInt8 { byte & ~mask | bits(value) }
    }

    /// A field set to a value: one line of a mode's or a feature's recipe.
    public struct Setting: Sendable, Equatable {
        public let field: Field
        public let value: UInt8
        public init(_ field: Field, _ value: UInt8) {
            self.field = field
            self.value = value
        }
    }

    public struct Range: Sendable, Equatable {
        /// Nominal full scale in g (2 for "±2 g").
        public let fullScale: Int
        /// Field value that selects it.
        public let code: UInt8
        /// Typical sensitivity in g per digit at the part's finest resolution.
        public let gPerDigit: Double
    }

    public struct Rate: Sendable, Equatable {
        public let hertz: Int
        public let code: UInt8
    }

    /// A power mode: how many bits the outputs carry, the bits that select
    /// it, and the rates it offers (the LIS3DH's low-power mode has rates
    /// the others lack, under the same codes).
    public struct Mode: Sendable, Equatable {
        public let name: String
        public let resolutionBits: Int
        public let settings: [Setting]
        public let rates: [Rate]
    }

    /// The datasheet's self-test: the field and code that turn the
    /// actuator on, and the published output change in digits, at the
    /// smallest range in `mode`.
    public struct SelfTest: Sendable, Equatable {
        public let field: Field
        public let code: UInt8
        /// The mode the limits were published for.
        public let mode: String
        public let x: ClosedRange<Int>
        public let y: ClosedRange<Int>
        public let z: ClosedRange<Int>
        /// The datasheet gives the size of the change only, not its sign.
        public let magnitudeOnly: Bool
        public subscript(axis: Axis) -> ClosedRange<Int> {
            switch axis {
            case .x: x
            case .y: y
            case .z: z
            }
        }
    }

    /// How a multi-byte transfer walks the registers.
    public enum AutoIncrement: Sendable, Equatable {
        /// Bit 7 of the sub-address, per transfer (most of the family).
        case subAddressBit(UInt8)
        /// A control bit, set once (the LIS3DSH's ADD_INC); the sub-address
        /// is the plain register number.
        case controlBit(Field)
    }

    /// One register the datasheet defines, for the model and `accelctl dump`.
    public struct Register: Sendable, Equatable {
        public enum Access: Sendable, Equatable {
            case readOnly
            case readWrite
            /// Reading it changes the chip (clears a latch, resets a filter).
            case readClears
        }
        public let address: UInt8
        public let name: String
        public let access: Access
        public let reset: UInt8
        /// Named bit fields, most significant first, for decoding.
        public let fields: [(name: String, mask: UInt8)]

        public static func == (a: Register, b: Register) -> Bool { a.address == b.address && a.name == b.name }
    }

    /// The name `part =` and `--part` take: one part, such as "LIS3DH".
    public let name: String
    /// Other names for exactly the same part (the LIS331DL is a LIS302DL).
    public let aliases: [String]
    public let whoAmI: UInt8
    /// 7-bit addresses the part can strap to.
    public let addresses: [UInt8]
    public let whoAmIRegister: UInt8
    public let autoIncrement: AutoIncrement
    /// The status register; a sample's burst starts here (STATUS, then
    /// three little-endian 16-bit output slots).
    public let statusRegister: UInt8
    /// Registers written at configure, in order, with their base values
    /// (power on, all axes on, block data update, filters and interrupts
    /// off). Range, rate, mode and FIFO bits are set into these.
    public let controlBaseline: [(register: UInt8, value: UInt8)]
    public let rangeField: Field
    public let rateField: Field
    /// Zero in this field is power-down (PD, PM or ODR, per part).
    public let powerField: Field
    public let bootField: Field
    /// The first is the default.
    public let modes: [Mode]
    public let ranges: [Range]
    /// nil: the part has no self-test, or no published limits for one.
    public let selfTest: SelfTest?
    public let fifo: FIFO?
    public let registers: [Register]
    /// Output data periods to wait after power-up or a change.
    public let turnOnPeriods: Int
    /// Longest time BOOT may take before it clears itself.
    public let bootMilliseconds: Int
    /// The datasheet's ODR tolerance: the published rate never exceeds the
    /// nominal ODR by more than this fraction.
    public let rateTolerance: Double
    /// Where the accelerometer's OUT_X_L sits, counted in bytes from the
    /// status register (the LIS family: right after it).
    public var accelerometerOffset = 1
    /// What the status register's bits mean.
    public var statusBits = StatusBits.family
    /// A six-axis part's gyroscope (the LSM6DS family).
    public var gyroscope: Gyroscope? = nil
    /// The datasheet's typical acceleration noise density, g/√Hz, at the
    /// smallest range in the finest mode; nil where the datasheet gives none.
    public var accelerometerNoiseDensity: Double? = nil

    /// This part with the datasheet's acceleration noise density, g/√Hz.
    func accelerometerNoise(_ density: Double) -> ChipProfile {
        var profile = self
        profile.accelerometerNoiseDensity = density
        return profile
    }

    /// The status register's data-ready and overrun bits.
    public struct StatusBits: Sendable, Equatable {
        /// New accelerometer data (the LIS family's ZYXDA with its per-axis XDA..ZDA).
        public let dataReady: UInt8
        /// A sample overwritten unread (ZYXOR and XOR..ZOR); 0 where the register has none.
        public let overrun: UInt8
        /// New gyroscope data (GDA); 0 without one.
        public let gyroscopeReady: UInt8
        public static let family = StatusBits(dataReady: 0x0F, overrun: 0xF0, gyroscopeReady: 0)
        /// The LSM6DS family's STATUS_REG: XLDA, GDA; no overrun bit (the FIFO has it).
        public static let sixAxis = StatusBits(dataReady: 0x01, overrun: 0, gyroscopeReady: 0x02)
    }

    /// A six-axis part's gyroscope, as data like the rest: it runs at the
    /// accelerometer's rate code.
    public struct Gyroscope: Sendable, Equatable {
        public struct Range: Sendable, Equatable {
            /// Full scale, ±degrees per second.
            public let dps: Int
            public let code: UInt8
            /// Typical sensitivity, dps per digit.
            public let dpsPerDigit: Double
        }
        /// Full scale (FS_G with FS_125 as one field).
        public let rangeField: Field
        /// Output data rate (ODR_G, the accelerometer's codes).
        public let rateField: Field
        /// The default (the widest: a hand turns a board at over 1000 dps) comes first.
        public let ranges: [Range]
        /// Where OUTX_L_G sits, counted from the status register.
        public let dataOffset: Int
        /// The self-test: the field and code that turn it on, and the
        /// published change of the rate in dps at `selfTestRange`.
        public let selfTestField: Field
        public let selfTestCode: UInt8
        public let selfTestRange: Int
        public let selfTestLimits: ClosedRange<Double>
        /// The datasheet's typical zero-rate level, ±dps, and rate noise density, dps/√Hz.
        public let zeroRateLevel: Double
        public let noiseDensity: Double

        public func range(dps: Int) -> Range? { ranges.first { $0.dps == dps } }
    }

    /// STATUS and the outputs that follow it: the LIS family's three
    /// 16-bit slots, or a six-axis part's temperature, gyroscope and
    /// accelerometer.
    public var burstLength: Int { max(accelerometerOffset, gyroscope?.dataOffset ?? 0) + ChipProfile.sampleBytes }
    /// Bytes per sample in the output registers (and in the FIFO).
    public static let sampleBytes = 6

    /// The sub-address that starts a multi-byte read at `register`.
    public func burstAddress(_ register: UInt8) -> UInt8 {
        if case .subAddressBit(let bit) = autoIncrement { return register | bit }
        return register
    }

    /// The finest resolution of any mode: `Range.gPerDigit` is given at it.
    public var finestResolution: Int { modes.map(\.resolutionBits).max()! }

    public func range(fullScale: Int) -> Range? { ranges.first { $0.fullScale == fullScale } }
    public func mode(named name: String?) -> Mode? { name.map { n in modes.first { $0.name == n } } ?? modes.first }
    /// Every rate some mode offers, ascending.
    public var allRates: [Int] { Set(modes.flatMap { $0.rates.map(\.hertz) }).sorted() }

    /// g per digit at `fullScale` in `mode`.
    public func sensitivity(fullScale: Int, mode: Mode) -> Double? {
        guard let range = range(fullScale: fullScale) else { return nil }
        return range.gPerDigit * Double(1 << (finestResolution - mode.resolutionBits))
    }

    public func register(named name: String) -> Register? { registers.first { $0.name == name } }
    public func register(at address: UInt8) -> Register? { registers.first { $0.address == address } }
}

extension ChipProfile {
    /// The parts this build drives. Several may share one WHO_AM_I with
    /// different scales (0x32, 0x33): then only `part` says which.
    public static let supported: [ChipProfile] = [
        .lis302dl, .lis331dlh, .lis331hh, .h3lis331dl, .lis3dh, .lis2dh12, .lis3dsh, .lsm6dso, .lsm6dsl, .lsm6ds3,
    ]

    /// The profile for a part name or alias, any case.
    public static func named(_ name: String) -> ChipProfile? {
        let wanted = name.uppercased()
        return supported.first { $0.name == wanted || $0.aliases.contains(wanted) }
    }

    /// The parts that answer with `whoAmI`.
    public static func candidates(whoAmI: UInt8) -> [ChipProfile] { supported.filter { $0.whoAmI == whoAmI } }

    /// WHO_AM_I values of related parts this build does not drive, so an
    /// error can say what was found instead of "unknown chip".
    public static let relatives: [UInt8: String] = [
        0x3A: "LIS3LV02DL (12-bit, a different register map)",
        0x41: "LIS2HH12 (a different register map)",
        0x44: "LIS2DW12 (a different register map)",
        0x6B: "ISM330DHCX, LSM6DSR or ASM330LHH (six-axis parts not in the table yet)",
    ]

    /// Every 7-bit address a family member may answer at, in probe order.
    public static let familyAddresses: [UInt8] = [0x18, 0x19, 0x1C, 0x1D, 0x6A, 0x6B]
}
