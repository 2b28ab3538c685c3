// SPDX-License-Identifier: Apache-2.0
import AccelCore
// The parts, as data. Facts from ST's datasheets, cross-checked against the
// Linux kernel's st_accel table (drivers/iio/accel/st_accel_core.c) and
// Zephyr's lis2dh driver; docs/DRIVER.md cites each one.
// (rw, ro and clears, the register helpers, serve the six-axis parts too.)

private typealias Field = ChipProfile.Field
private typealias Register = ChipProfile.Register

func rw(_ address: UInt8, _ name: String, reset: UInt8 = 0, _ fields: [(String, UInt8)] = []) -> ChipProfile.Register {
    ChipProfile.Register(address: address, name: name, access: .readWrite, reset: reset, fields: fields.map { (name: $0.0, mask: $0.1) })
}
func ro(_ address: UInt8, _ name: String, reset: UInt8 = 0, _ fields: [(String, UInt8)] = []) -> ChipProfile.Register {
    ChipProfile.Register(address: address, name: name, access: .readOnly, reset: reset, fields: fields.map { (name: $0.0, mask: $0.1) })
}
func clears(_ address: UInt8, _ name: String) -> ChipProfile.Register {
    ChipProfile.Register(address: address, name: name, access: .readClears, reset: 0, fields: [])
}

private let statusFields: [(String, UInt8)] = [
    ("ZYXOR", 0x80), ("ZOR", 0x40), ("YOR", 0x20), ("XOR", 0x10), ("ZYXDA", 0x08), ("ZDA", 0x04), ("YDA", 0x02), ("XDA", 0x01),
]
private let axisEnables: [(String, UInt8)] = [("Zen", 0x04), ("Yen", 0x02), ("Xen", 0x01)]
private func outputs16() -> [Register] {
    ["X", "Y", "Z"].enumerated().flatMap { index, axis in
        [ro(0x28 + UInt8(2 * index), "OUT_\(axis)_L"), ro(0x29 + UInt8(2 * index), "OUT_\(axis)_H")]
    }
}
private func interruptUnit(_ n: Int, base: UInt8) -> [Register] {
    [
        rw(base, "INT\(n)_CFG", [("AOI", 0x80), ("6D", 0x40), ("ZHIE", 0x20), ("ZLIE", 0x10), ("YHIE", 0x08), ("YLIE", 0x04), ("XHIE", 0x02), ("XLIE", 0x01)]),
        clears(base + 1, "INT\(n)_SRC"),
        rw(base + 2, "INT\(n)_THS", [("THS", 0x7F)]),
        rw(base + 3, "INT\(n)_DURATION", [("D", 0x7F)]),
    ]
}

extension ChipProfile {
    /// LIS302DL (and the LIS331DL, the same die): WHO_AM_I 0x3B, 8-bit
    /// outputs interleaved with dummies, ±2/±8 g, 100/400 Hz, no FIFO.
    public static let lis302dl = ChipProfile(
        name: "LIS302DL",
        aliases: ["LIS331DL"],
        whoAmI: 0x3B,
        addresses: [0x1C, 0x1D],
        whoAmIRegister: 0x0F,
        autoIncrement: .subAddressBit(0x80),
        statusRegister: 0x27,
        controlBaseline: [
            (0x20, 0x47),  // CTRL_REG1: PD=1, Zen Yen Xen
            (0x21, 0x00),  // CTRL_REG2: FDS=0 (raw data, not high-passed), no BOOT
            (0x22, 0x00),  // CTRL_REG3: interrupts to GND
            (0x30, 0x00),  // FF_WU_CFG_1: the wake-up unit off unless armed
            (0x32, 0x00),  // FF_WU_THS_1
            (0x33, 0x00),  // FF_WU_DURATION_1
        ],
        rangeField: Field(0x20, mask: 0x20),   // FS
        rateField: Field(0x20, mask: 0x80),    // DR
        powerField: Field(0x20, mask: 0x40),   // PD
        bootField: Field(0x21, mask: 0x40),    // BOOT
        modes: [Mode(name: "normal", resolutionBits: 8, settings: [],
                     rates: [Rate(hertz: 100, code: 0), Rate(hertz: 400, code: 1)])],
        ranges: [
            Range(fullScale: 2, code: 0, gPerDigit: 0.018),
            Range(fullScale: 8, code: 1, gPerDigit: 0.072),
        ],
        // Kernel board files for this part: X −32..−3, Y and Z +3..+32 (STP).
        selfTest: SelfTest(field: Field(0x20, mask: 0x18), code: 0b10, mode: "normal",
                           x: -32 ... -3, y: 3...32, z: 3...32, magnitudeOnly: false),
        fifo: nil,
        registers: [
            ro(0x0F, "WHO_AM_I", reset: 0x3B),
            rw(0x20, "CTRL_REG1", reset: 0x07, [("DR", 0x80), ("PD", 0x40), ("FS", 0x20), ("STP", 0x10), ("STM", 0x08)] + axisEnables),
            rw(0x21, "CTRL_REG2", [("SIM", 0x80), ("BOOT", 0x40), ("FDS", 0x10), ("HP_FF_WU2", 0x08), ("HP_FF_WU1", 0x04), ("HP_coeff", 0x03)]),
            rw(0x22, "CTRL_REG3", [("IHL", 0x80), ("PP_OD", 0x40), ("I2CFG", 0x38), ("I1CFG", 0x07)]),
            clears(0x23, "HP_FILTER_RESET"),
            ro(0x27, "STATUS_REG", statusFields),
            ro(0x28, "OUT_X_dummy"), ro(0x29, "OUT_X"), ro(0x2A, "OUT_Y_dummy"), ro(0x2B, "OUT_Y"), ro(0x2C, "OUT_Z_dummy"), ro(0x2D, "OUT_Z"),
            rw(0x30, "FF_WU_CFG_1"), clears(0x31, "FF_WU_SRC_1"), rw(0x32, "FF_WU_THS_1"), rw(0x33, "FF_WU_DURATION_1"),
            rw(0x34, "FF_WU_CFG_2"), clears(0x35, "FF_WU_SRC_2"), rw(0x36, "FF_WU_THS_2"), rw(0x37, "FF_WU_DURATION_2"),
            rw(0x38, "CLICK_CFG"), clears(0x39, "CLICK_SRC"), rw(0x3B, "CLICK_THSY_X"), rw(0x3C, "CLICK_THSZ"),
            rw(0x3D, "CLICK_TimeLimit"), rw(0x3E, "CLICK_Latency"), rw(0x3F, "CLICK_Window"),
        ],
        turnOnPeriods: 3,
        bootMilliseconds: 10,
        rateTolerance: 0.10
    )

    /// The 0x32 family: 12-bit outputs left-justified in OUT_*_L/H, PM and
    /// DR in CTRL_REG1, BDU and FS in CTRL_REG4. The three parts differ
    /// only in their ranges and self-test.
    private static func lis331(name: String, ranges: [Range], selfTest: (x: ClosedRange<Int>, y: ClosedRange<Int>, z: ClosedRange<Int>)?) -> ChipProfile {
        ChipProfile(
            name: name,
            aliases: [],
            whoAmI: 0x32,
            addresses: [0x18, 0x19],
            whoAmIRegister: 0x0F,
            autoIncrement: .subAddressBit(0x80),
            statusRegister: 0x27,
            controlBaseline: [
                (0x20, 0x27),  // CTRL_REG1: PM=001 (normal mode), Zen Yen Xen
                (0x21, 0x00),  // CTRL_REG2: no BOOT, high-pass off
                (0x22, 0x00),  // CTRL_REG3: interrupts off
                (0x23, 0x80),  // CTRL_REG4: BDU (high and low bytes from one sample)
                (0x30, 0x00),  // INT1_CFG: the wake-up unit off unless armed
                (0x32, 0x00),  // INT1_THS
                (0x33, 0x00),  // INT1_DURATION
            ],
            rangeField: Field(0x23, mask: 0x30),   // FS
            rateField: Field(0x20, mask: 0x18),    // DR
            powerField: Field(0x20, mask: 0xE0),   // PM
            bootField: Field(0x21, mask: 0x80),    // BOOT
            modes: [Mode(name: "normal", resolutionBits: 12, settings: [],
                         rates: [Rate(hertz: 50, code: 0), Rate(hertz: 100, code: 1), Rate(hertz: 400, code: 2), Rate(hertz: 1000, code: 3)])],
            ranges: ranges,
            // CTRL_REG4: ST (b1) with STsign (b3) clear: the positive sign.
            // ST's own self-test example compares the size of the change.
            selfTest: selfTest.map {
                SelfTest(field: Field(0x23, mask: 0x0A), code: 0b001, mode: "normal", x: $0.x, y: $0.y, z: $0.z, magnitudeOnly: true)
            },
            fifo: nil,
            registers: [
                ro(0x0F, "WHO_AM_I", reset: 0x32),
                rw(0x20, "CTRL_REG1", reset: 0x07, [("PM", 0xE0), ("DR", 0x18)] + axisEnables),
                rw(0x21, "CTRL_REG2", [("BOOT", 0x80), ("HPM", 0x60), ("FDS", 0x10), ("HPen2", 0x08), ("HPen1", 0x04), ("HPCF", 0x03)]),
                rw(0x22, "CTRL_REG3", [("IHL", 0x80), ("PP_OD", 0x40), ("LIR2", 0x20), ("I2_CFG", 0x18), ("LIR1", 0x04), ("I1_CFG", 0x03)]),
                rw(0x23, "CTRL_REG4", [("BDU", 0x80), ("BLE", 0x40), ("FS", 0x30), ("STsign", 0x08), ("ST", 0x02), ("SIM", 0x01)]),
                rw(0x24, "CTRL_REG5", [("TurnOn", 0x03)]),
                clears(0x25, "HP_FILTER_RESET"),
                rw(0x26, "REFERENCE"),
                ro(0x27, "STATUS_REG", statusFields),
            ] + outputs16() + interruptUnit(1, base: 0x30) + interruptUnit(2, base: 0x34),
            turnOnPeriods: 3,
            bootMilliseconds: 10,
            rateTolerance: 0.10
        )
    }

    /// LIS331DLH: ±2/4/8 g at 1/2/3.9 mg per digit. Self-test limits from
    /// ST's lis331dlh_self_test.c (±2 g, 50 Hz). Noise density 218 µg/√Hz
    /// (datasheet Table 3, ±2 g).
    public static let lis331dlh = lis331(
        name: "LIS331DLH",
        ranges: [Range(fullScale: 2, code: 0, gPerDigit: 0.001), Range(fullScale: 4, code: 1, gPerDigit: 0.002),
                 Range(fullScale: 8, code: 3, gPerDigit: 0.0039)],
        selfTest: (x: 120...550, y: 120...550, z: 140...750)).accelerometerNoise(218e-6)

    /// LIS331HH: ±6/12/24 g at 3/6/12 mg per digit. Self-test: ST's answer
    /// on its forum gives X and Y at most 180, Z 220..370 digits at ±6 g;
    /// no minimum for X and Y is published, so any movement passes there.
    public static let lis331hh = lis331(
        name: "LIS331HH",
        ranges: [Range(fullScale: 6, code: 0, gPerDigit: 0.003), Range(fullScale: 12, code: 1, gPerDigit: 0.006),
                 Range(fullScale: 24, code: 3, gPerDigit: 0.012)],
        selfTest: (x: 1...180, y: 1...180, z: 220...370))

    /// H3LIS331DL: ±100/200/400 g at 49/98/195 mg per digit. It has no
    /// self-test (CTRL_REG4 b3:1 are unused on this part). Noise density
    /// 15 mg/√Hz. (The LIS331HH's datasheet gives none.)
    public static let h3lis331dl = lis331(
        name: "H3LIS331DL",
        ranges: [Range(fullScale: 100, code: 0, gPerDigit: 0.049), Range(fullScale: 200, code: 1, gPerDigit: 0.098),
                 Range(fullScale: 400, code: 3, gPerDigit: 0.195)],
        selfTest: nil).accelerometerNoise(15e-3)

    /// The 0x33 family: ODR and LPen in CTRL_REG1, BDU, FS and HR in
    /// CTRL_REG4, a 32-sample FIFO. Three modes: high-resolution (12-bit),
    /// normal (10-bit) and low-power (8-bit, with two faster rates).
    private static func lis3dhFamily(name: String, selfTest: ClosedRange<Int>) -> ChipProfile {
        let lowPower = Field(0x20, mask: 0x08)    // LPen
        let highResolution = Field(0x23, mask: 0x08)  // HR
        let common = [Rate(hertz: 1, code: 1), Rate(hertz: 10, code: 2), Rate(hertz: 25, code: 3), Rate(hertz: 50, code: 4),
                      Rate(hertz: 100, code: 5), Rate(hertz: 200, code: 6), Rate(hertz: 400, code: 7)]
        return ChipProfile(
            name: name,
            aliases: [],
            whoAmI: 0x33,
            addresses: [0x18, 0x19],
            whoAmIRegister: 0x0F,
            autoIncrement: .subAddressBit(0x80),
            statusRegister: 0x27,
            controlBaseline: [
                (0x20, 0x07),  // CTRL_REG1: ODR set below, Zen Yen Xen
                (0x21, 0x00),  // CTRL_REG2: high-pass off
                (0x22, 0x00),  // CTRL_REG3: interrupts off
                (0x23, 0x80),  // CTRL_REG4: BDU
                (0x24, 0x00),  // CTRL_REG5: FIFO off unless streaming, no BOOT
                (0x25, 0x00),  // CTRL_REG6: INT2 off, pins active high
                (0x2E, 0x00),  // FIFO_CTRL_REG: bypass unless streaming
                (0x30, 0x00),  // INT1_CFG: the wake-up unit off unless armed
                (0x32, 0x00),  // INT1_THS
                (0x33, 0x00),  // INT1_DURATION
            ],
            rangeField: Field(0x23, mask: 0x30),   // FS
            rateField: Field(0x20, mask: 0xF0),    // ODR
            powerField: Field(0x20, mask: 0xF0),   // ODR = 0 is power-down
            bootField: Field(0x24, mask: 0x80),    // BOOT
            modes: [
                Mode(name: "high-resolution", resolutionBits: 12, settings: [Setting(lowPower, 0), Setting(highResolution, 1)],
                     rates: common + [Rate(hertz: 1344, code: 9)]),
                Mode(name: "normal", resolutionBits: 10, settings: [Setting(lowPower, 0), Setting(highResolution, 0)],
                     rates: common + [Rate(hertz: 1344, code: 9)]),
                Mode(name: "low-power", resolutionBits: 8, settings: [Setting(lowPower, 1), Setting(highResolution, 0)],
                     rates: common + [Rate(hertz: 1620, code: 8), Rate(hertz: 5376, code: 9)]),
            ],
            ranges: [
                Range(fullScale: 2, code: 0, gPerDigit: 0.001), Range(fullScale: 4, code: 1, gPerDigit: 0.002),
                Range(fullScale: 8, code: 2, gPerDigit: 0.004), Range(fullScale: 16, code: 3, gPerDigit: 0.012),
            ],
            // CTRL_REG4 ST[1:0] = 01 (self-test 0); the limits are in
            // normal-mode (10-bit) digits at ±2 g and 50 Hz, as a size
            // (ST's lis3dh_self_test.c and lis2dh12_self_test.c).
            selfTest: SelfTest(field: Field(0x23, mask: 0x06), code: 0b01, mode: "normal",
                               x: selfTest, y: selfTest, z: selfTest, magnitudeOnly: true),
            fifo: FIFO(layout: .outputRegisters, depth: 32, enable: Field(0x24, mask: 0x40), batchRateFields: [], streamSettings: [],
                       modeField: Field(0x2E, mask: 0xC0), bypassCode: 0, streamCode: 0b10,
                       watermarkField: Field(0x2E, mask: 0x1F), statusRegister: 0x2F, statusLength: 1,
                       watermarkFlag: 0x80, overrunFlag: 0x40, emptyFlag: 0x20, levelMask: 0x1F, overrunMeansFull: true,
                       dataRegister: 0x28),
            registers: [
                ro(0x07, "STATUS_REG_AUX"),
                ro(0x0F, "WHO_AM_I", reset: 0x33),
                rw(0x1E, "CTRL_REG0", reset: 0x10, [("SDO_PU_DISC", 0x80)]),
                rw(0x1F, "TEMP_CFG_REG", [("ADC_EN", 0x80), ("TEMP_EN", 0x40)]),
                rw(0x20, "CTRL_REG1", reset: 0x07, [("ODR", 0xF0), ("LPen", 0x08)] + axisEnables),
                rw(0x21, "CTRL_REG2", [("HPM", 0xC0), ("HPCF", 0x30), ("FDS", 0x08), ("HPCLICK", 0x04), ("HP_IA2", 0x02), ("HP_IA1", 0x01)]),
                rw(0x22, "CTRL_REG3", [("I1_CLICK", 0x80), ("I1_IA1", 0x40), ("I1_IA2", 0x20), ("I1_ZYXDA", 0x10), ("I1_WTM", 0x04), ("I1_OVERRUN", 0x02)]),
                rw(0x23, "CTRL_REG4", [("BDU", 0x80), ("BLE", 0x40), ("FS", 0x30), ("HR", 0x08), ("ST", 0x06), ("SIM", 0x01)]),
                rw(0x24, "CTRL_REG5", [("BOOT", 0x80), ("FIFO_EN", 0x40), ("LIR_INT1", 0x08), ("D4D_INT1", 0x04), ("LIR_INT2", 0x02), ("D4D_INT2", 0x01)]),
                rw(0x25, "CTRL_REG6", [("I2_CLICK", 0x80), ("I2_IA1", 0x40), ("I2_IA2", 0x20), ("I2_BOOT", 0x10), ("I2_ACT", 0x08), ("INT_POLARITY", 0x02)]),
                clears(0x26, "REFERENCE"),
                ro(0x27, "STATUS_REG", statusFields),
            ] + outputs16() + [
                rw(0x2E, "FIFO_CTRL_REG", [("FM", 0xC0), ("TR", 0x20), ("FTH", 0x1F)]),
                ro(0x2F, "FIFO_SRC_REG", [("WTM", 0x80), ("OVRN_FIFO", 0x40), ("EMPTY", 0x20), ("FSS", 0x1F)]),
            ] + interruptUnit(1, base: 0x30) + interruptUnit(2, base: 0x34) + [
                rw(0x38, "CLICK_CFG"), clears(0x39, "CLICK_SRC"), rw(0x3A, "CLICK_THS"), rw(0x3B, "TIME_LIMIT"),
                rw(0x3C, "TIME_LATENCY"), rw(0x3D, "TIME_WINDOW"), rw(0x3E, "ACT_THS"), rw(0x3F, "ACT_DUR"),
            ],
            // Entering high-resolution takes 7/ODR (datasheet Table 11).
            turnOnPeriods: 7,
            bootMilliseconds: 5,
            rateTolerance: 0.10
        )
    }

    /// LIS3DH: the part on most LIS3DH breakouts (Adafruit 2809, SparkFun).
    public static let lis3dh = lis3dhFamily(name: "LIS3DH", selfTest: 17...360)

    /// LIS2DH12: the LIS3DH's smaller successor, the same map and scales.
    /// Its datasheet gives a noise density (220 µg/√Hz, high-resolution,
    /// ±2 g); the LIS3DH's and the LIS302DL's give none.
    public static let lis2dh12 = lis3dhFamily(name: "LIS2DH12", selfTest: 17...360).accelerometerNoise(220e-6)

    /// LIS3DSH: the LIS302DL's successor on ST's STM32F4-Discovery. Its own
    /// map: ODR and BDU in CTRL_REG4 (0x20), FSCALE and ST in CTRL_REG5,
    /// and auto-increment by the ADD_INC bit of CTRL_REG6, not by bit 7 of
    /// the sub-address. Its FIFO is not used yet, and it publishes no
    /// self-test limits (DRIVER.md).
    public static let lis3dsh = ChipProfile(
        name: "LIS3DSH",
        aliases: [],
        whoAmI: 0x3F,
        addresses: [0x1E, 0x1D],
        whoAmIRegister: 0x0F,
        autoIncrement: .controlBit(Field(0x25, mask: 0x10)),
        statusRegister: 0x27,
        controlBaseline: [
            (0x25, 0x10),  // CTRL_REG6: ADD_INC first, so every later burst walks
            (0x20, 0x0F),  // CTRL_REG4: ODR set below, BDU, Zen Yen Xen
            (0x23, 0x00),  // CTRL_REG3: interrupts off
            (0x24, 0x00),  // CTRL_REG5: anti-aliasing 800 Hz, FSCALE set below, no self-test
        ],
        rangeField: Field(0x24, mask: 0x38),   // FSCALE
        rateField: Field(0x20, mask: 0xF0),    // ODR
        powerField: Field(0x20, mask: 0xF0),   // ODR = 0 is power-down
        bootField: Field(0x25, mask: 0x80),    // BOOT
        modes: [Mode(name: "normal", resolutionBits: 16, settings: [],
                     // 3.125, 6.25 and 12.5 Hz (codes 1..3) are left out: rates are whole hertz.
                     rates: [Rate(hertz: 25, code: 4),
                             Rate(hertz: 50, code: 5), Rate(hertz: 100, code: 6), Rate(hertz: 400, code: 7), Rate(hertz: 800, code: 8),
                             Rate(hertz: 1600, code: 9)])],
        ranges: [
            Range(fullScale: 2, code: 0, gPerDigit: 0.00006), Range(fullScale: 4, code: 1, gPerDigit: 0.00012),
            Range(fullScale: 6, code: 2, gPerDigit: 0.00018), Range(fullScale: 8, code: 3, gPerDigit: 0.00024),
            Range(fullScale: 16, code: 4, gPerDigit: 0.00073),
        ],
        // CTRL_REG5 ST = 01 turns the actuator on, but no limits are
        // published anywhere we could find: no verdict is offered.
        selfTest: nil,
        fifo: nil,
        registers: [
            ro(0x0C, "OUT_T"), ro(0x0D, "INFO1", reset: 0x21), ro(0x0E, "INFO2"),
            ro(0x0F, "WHO_AM_I", reset: 0x3F),
            rw(0x10, "OFF_X"), rw(0x11, "OFF_Y"), rw(0x12, "OFF_Z"),
            rw(0x20, "CTRL_REG4", reset: 0x07, [("ODR", 0xF0), ("BDU", 0x08)] + axisEnables),
            rw(0x21, "CTRL_REG1"), rw(0x22, "CTRL_REG2"),
            rw(0x23, "CTRL_REG3", [("DR_EN", 0x80), ("IEA", 0x40), ("IEL", 0x20), ("INT2_EN", 0x10), ("INT1_EN", 0x08), ("VFILT", 0x04), ("STRT", 0x01)]),
            rw(0x24, "CTRL_REG5", [("BW", 0xC0), ("FSCALE", 0x38), ("ST", 0x06), ("SIM", 0x01)]),
            rw(0x25, "CTRL_REG6", [("BOOT", 0x80), ("FIFO_EN", 0x40), ("WTM_EN", 0x20), ("ADD_INC", 0x10), ("P1_EMPTY", 0x08), ("P1_WTM", 0x04), ("P1_OVERRUN", 0x02), ("P2_BOOT", 0x01)]),
            ro(0x27, "STATUS", statusFields),
        ] + outputs16() + [
            rw(0x2E, "FIFO_CTRL", [("FMODE", 0xE0), ("WTMP", 0x1F)]),
            ro(0x2F, "FIFO_SRC", [("WTM", 0x80), ("OVRN_FIFO", 0x40), ("EMPTY", 0x20), ("FSS", 0x1F)]),
        ],
        turnOnPeriods: 1,
        bootMilliseconds: 10,
        rateTolerance: 0.10
    )
}
