// SPDX-License-Identifier: Apache-2.0
// Each part's wake-up (motion) unit, as data: the chip watches for motion
// itself and raises a pin, so that acceld can stop reading while the
// board is still. acceld arms it one way on every part: a high event on
// any axis (OR), of the acceleration with gravity taken out by the
// high-pass filter on the unit's path, latched until the source register
// is read. Facts from the
// datasheets (LIS302DL FF_WU_1, LIS331DLH / LIS3DH INT1_CFG "IA1",
// LSM6DSO / LSM6DSL WAKE_UP_THS) and ST's application notes on wake-up
// (AN3308 for the LIS3DH, AN5192 for the LSM6DSO); docs/DRIVER.md cites them.

private typealias Field = ChipProfile.Field
private typealias Setting = ChipProfile.Setting

extension ChipProfile {
    /// A part's wake-up unit.
    public struct WakeUp: Sendable, Equatable {
        /// How the unit takes gravity out before comparing with the threshold.
        public enum Filter: Sendable, Equatable {
            /// A high-pass filter: its reference set by reading `filterReset`,
            /// or, without one, running all along (`filterSettings`).
            case highPass
            /// Half the difference of consecutive samples (the LSM6DS's slope,
            /// which acceld does not use: see `lsm6ds`).
            case slope
        }

        /// The settings that arm the unit as acceld uses it: the axes'
        /// high events ORed, the filter on its path, the latch.
        public let settings: [Setting]
        /// The threshold, in steps of `gPerStep[k]` at the part's k-th range.
        public let threshold: Field
        public let gPerStep: [Double]
        /// Samples beyond the first that the motion must last.
        public let duration: Field
        /// Reading it says whether the unit fired (`fired`) and releases the latch.
        public let source: UInt8
        public let fired: UInt8
        /// The setting that latches the source until it is read.
        public let latch: Setting
        public let filter: Filter
        /// Reading it sets the high-pass filter's reference to the present
        /// acceleration, so that the board's attitude reads as zero.
        public let filterReset: UInt8?
        /// Settings every configure writes, armed or not: a high-pass with
        /// no reset register runs all along, so it has long settled on the
        /// board's attitude when the unit is armed.
        public var filterSettings: [Setting] = []
        /// The high-pass filter's cut-off: the output rate over this.
        public var highPassDivisor = 48.0
        /// The source register's bits for X, Y and Z over the threshold.
        public var axisBits: [UInt8] = [0x02, 0x08, 0x20]

        /// The threshold's steps for `g` at `range` (±g): at least one step,
        /// at most the field's largest.
        public func steps(for g: Double, range: Int, in profile: ChipProfile) -> UInt8 {
            let index = profile.ranges.firstIndex { $0.fullScale == range } ?? 0
            let largest = Double(threshold.mask >> UInt8(threshold.mask.trailingZeroBitCount))
            return UInt8(min(max((g / gPerStep[index]).rounded(), 1), largest))
        }
    }

    /// The part's wake-up unit; nil for a part whose unit is not in the table.
    public var wakeUp: WakeUp? {
        switch name {
        case "LIS302DL": .lis302dl
        case "LIS331DLH", "LIS331HH", "H3LIS331DL": .lis331(ranges: ranges)
        case "LIS3DH", "LIS2DH12": .lis3dh
        // SLOPE_FDS and HPCF_XL = ODR / 100: 100 in 3 bits on the LSM6DSO, 01 in 2 on the others.
        case "LSM6DSO": .lsm6ds(ranges: ranges, latch: Setting(Field(0x56, mask: 0x01), 1),
                                highPass: [Setting(Field(0x56, mask: 0x10), 1), Setting(Field(0x17, mask: 0xE0), 0b100)])
        case "LSM6DSL", "LSM6DS3": .lsm6ds(ranges: ranges, latch: Setting(Field(0x58, mask: 0x01), 1),
                                           highPass: [Setting(Field(0x58, mask: 0x10), 1), Setting(Field(0x17, mask: 0x60), 0b01)])
        default: nil
        }
    }

    /// The rate a part without a FIFO watches at while the board sleeps:
    /// its first mode's slowest at or above 10 Hz, so that a wake-up comes
    /// within a tenth of a second of the motion while the chip draws least.
    /// (A part with a FIFO keeps its rate, and its FIFO the samples.)
    public var wakeUpRate: Int {
        let rates = modes[0].rates.map(\.hertz)
        return rates.filter { $0 >= 10 }.min() ?? rates.max()!
    }
}

extension ChipProfile.WakeUp {
    /// FF_WU_1: CFG (0x30) LIR, ZHIE, YHIE, XHIE; THS (0x32) 18 / 72 mg a
    /// step; CTRL_REG2's HP_FF_WU1 puts the high-pass filter on its path,
    /// and reading HP_FILTER_RESET (0x23) sets its reference.
    static let lis302dl = Self(
        settings: [Setting(Field(0x30, mask: 0xFF), 0x6A), Setting(Field(0x21, mask: 0x04), 1)],
        threshold: Field(0x32, mask: 0x7F), gPerStep: [0.018, 0.072], duration: Field(0x33, mask: 0xFF),
        source: 0x31, fired: 0x40, latch: Setting(Field(0x30, mask: 0x40), 1), filter: .highPass, filterReset: 0x23)

    /// INT1_CFG (0x30) ZHIE, YHIE, XHIE; INT1_THS (0x32) full scale / 128 a
    /// step; CTRL_REG2's HPen1, CTRL_REG3's LIR1; HP_FILTER_RESET (0x25).
    static func lis331(ranges: [ChipProfile.Range]) -> Self {
        Self(settings: [Setting(Field(0x30, mask: 0xFF), 0x2A), Setting(Field(0x21, mask: 0x04), 1), Setting(Field(0x22, mask: 0x04), 1)],
             threshold: Field(0x32, mask: 0x7F), gPerStep: ranges.map { Double($0.fullScale) / 128 }, duration: Field(0x33, mask: 0x7F),
             source: 0x31, fired: 0x40, latch: Setting(Field(0x22, mask: 0x04), 1), filter: .highPass, filterReset: 0x25)
    }

    /// INT1_CFG (0x30) ZHIE, YHIE, XHIE; INT1_THS (0x32) 16, 32, 62 and
    /// 186 mg a step; CTRL_REG2's HP_IA1 in normal mode (HPM 00: REFERENCE,
    /// 0x26, read sets the reference); CTRL_REG5's LIR_INT1.
    static let lis3dh = Self(
        settings: [Setting(Field(0x30, mask: 0xFF), 0x2A), Setting(Field(0x21, mask: 0x01), 1), Setting(Field(0x24, mask: 0x08), 1)],
        threshold: Field(0x32, mask: 0x7F), gPerStep: [0.016, 0.032, 0.062, 0.186], duration: Field(0x33, mask: 0x7F),
        source: 0x31, fired: 0x40, latch: Setting(Field(0x24, mask: 0x08), 1), filter: .highPass, filterReset: 0x26)

    /// WAKE_UP_THS (0x5B) WK_THS, full scale / 64 a step; WAKE_UP_DUR
    /// (0x5C) WAKE_DUR; the basic interrupts on (0x58 bit 7: TAP_CFG2's or
    /// TAP_CFG's INTERRUPTS_ENABLE); WAKE_UP_SRC (0x1B) WU_IA. On the
    /// high-pass filter (SLOPE_FDS) at ODR / 100 (CTRL8_XL's HPCF_XL), not
    /// the slope, which compares consecutive samples and so, at a
    /// configured rate of 104 Hz or more, would miss a slow motion: the
    /// part keeps its rate (and its FIFO) while the board sleeps. The
    /// filter has no reset register: every configure selects it
    /// (`filterSettings`), so it has settled when the unit is armed.
    static func lsm6ds(ranges: [ChipProfile.Range], latch: ChipProfile.Setting, highPass: [ChipProfile.Setting]) -> Self {
        Self(settings: [Setting(Field(0x58, mask: 0x80), 1), latch],
             threshold: Field(0x5B, mask: 0x3F), gPerStep: ranges.map { Double($0.fullScale) / 64 }, duration: Field(0x5C, mask: 0x60),
             source: 0x1B, fired: 0x08, latch: latch, filter: .highPass, filterReset: nil,
             filterSettings: highPass, highPassDivisor: 100, axisBits: [0x04, 0x02, 0x01])
    }
}
