// SPDX-License-Identifier: Apache-2.0
/// Everything that differs between parts of the family, as data: the
/// driver has no per-part branches (the kernel's st_accel settings table is
/// the model). Adding a part is adding an entry and a test.
public struct ChipProfile: Sendable, Equatable {
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
    }

    public struct Range: Sendable, Equatable {
        /// Nominal full scale in g (2 for "±2 g").
        public let fullScale: Int
        /// Field value that selects it.
        public let code: UInt8
        /// Typical sensitivity in g per digit at the output resolution.
        public let gPerDigit: Double
    }

    public struct Rate: Sendable, Equatable {
        public let hertz: Int
        public let code: UInt8
    }

    /// Self-test limits in raw digits at the smallest range: (min, max) per axis.
    public struct SelfTestLimits: Sendable, Equatable {
        public let x: ClosedRange<Int>
        public let y: ClosedRange<Int>
        public let z: ClosedRange<Int>
        public subscript(axis: Axis) -> ClosedRange<Int> {
            switch axis {
            case .x: x
            case .y: y
            case .z: z
            }
        }
    }

    public let name: String
    /// Parts that answer with this WHO_AM_I and share this map.
    public let parts: [String]
    public let whoAmI: UInt8
    /// 7-bit addresses the part can strap to.
    public let addresses: [UInt8]

    public let whoAmIRegister: UInt8
    /// Sub-address bit that turns on auto-increment in multi-byte transfers.
    public let autoIncrement: UInt8
    /// The status register; the burst starts here.
    public let statusRegister: UInt8
    /// Registers written at configure, in order, with their base values
    /// (power on, all axes on, filters off, interrupts off). Range and rate
    /// bits are OR-ed into these.
    public let controlBaseline: [(register: UInt8, value: UInt8)]
    public let rangeField: Field
    public let rateField: Field
    /// Set to power the chip up; clearing it powers down.
    public let powerField: Field
    public let selfTestField: Field
    public let bootField: Field
    /// Output bits per axis. Outputs are little-endian 16-bit slots after the
    /// status byte, left-justified; an 8-bit part's value sits in the high
    /// byte (the LIS302DL's OUT_X at 0x29 after the dummy at 0x28).
    public let resolutionBits: Int
    public let ranges: [Range]
    public let rates: [Rate]
    public let selfTestLimits: SelfTestLimits
    /// Output data periods to wait after power-up or a change (datasheet: 3/ODR).
    public let turnOnPeriods: Int
    /// Longest time BOOT may take before it clears itself.
    public let bootMilliseconds: Int

    /// STATUS plus three 16-bit slots.
    public var burstLength: Int { 7 }

    public func range(fullScale: Int) -> Range? { ranges.first { $0.fullScale == fullScale } }
    public func rate(hertz: Int) -> Rate? { rates.first { $0.hertz == hertz } }

    public static func == (a: ChipProfile, b: ChipProfile) -> Bool { a.name == b.name && a.whoAmI == b.whoAmI }
}

extension ChipProfile {
    /// LIS302DL and LIS331DL: WHO_AM_I 0x3B, 8-bit outputs interleaved with
    /// dummies, ±2/±8 g, 100/400 Hz. Values from ST's datasheet as gathered
    /// in shared/chips/LIS302DL.md.
    public static let lis302dl = ChipProfile(
        name: "LIS302DL",
        parts: ["LIS302DL", "LIS331DL"],
        whoAmI: 0x3B,
        addresses: [0x1C, 0x1D],
        whoAmIRegister: 0x0F,
        autoIncrement: 0x80,
        statusRegister: 0x27,
        controlBaseline: [
            (0x20, 0x47),  // CTRL_REG1: PD=1, Zen Yen Xen
            (0x21, 0x00),  // CTRL_REG2: FDS=0 (raw data, not high-passed), no BOOT
            (0x22, 0x00),  // CTRL_REG3: interrupts to GND
        ],
        rangeField: Field(0x20, mask: 0x20),     // FS
        rateField: Field(0x20, mask: 0x80),      // DR
        powerField: Field(0x20, mask: 0x40),     // PD
        selfTestField: Field(0x20, mask: 0x10),  // STP
        bootField: Field(0x21, mask: 0x40),      // BOOT
        resolutionBits: 8,
        ranges: [
            Range(fullScale: 2, code: 0, gPerDigit: 0.018),
            Range(fullScale: 8, code: 1, gPerDigit: 0.072),
        ],
        rates: [Rate(hertz: 100, code: 0), Rate(hertz: 400, code: 1)],
        // Kernel board files for this part: X −32..−3, Y and Z +3..+32.
        selfTestLimits: SelfTestLimits(x: -32 ... -3, y: 3...32, z: 3...32),
        turnOnPeriods: 3,
        bootMilliseconds: 10
    )

    /// The parts this build drives, keyed by WHO_AM_I.
    public static let supported: [ChipProfile] = [.lis302dl]

    public static func supported(whoAmI: UInt8) -> ChipProfile? { supported.first { $0.whoAmI == whoAmI } }

    /// WHO_AM_I values of related parts this build does not drive yet, so an
    /// error can say what was found instead of "unknown chip".
    public static let relatives: [UInt8: String] = [
        0x32: "LIS331DLH / LIS302DLH / LIS331HH / H3LIS331DL (12-bit, different register map)",
        0x33: "LIS3DH / LIS2DH12 / LSM303DLHC accelerometer (16-bit, different register map)",
        0x3A: "LIS3LV02DL (12-bit, different register map)",
        0x3F: "LIS3DSH (different register map)",
    ]

    /// Every 7-bit address a family member may answer at, in probe order.
    public static let familyAddresses: [UInt8] = [0x1C, 0x1D, 0x18, 0x19]
}
