// SPDX-License-Identifier: Apache-2.0
import AccelCore
// ST's six-axis parts, as data: an accelerometer and a gyroscope on one
// map. Facts from ST's register headers and self-test examples
// (STMems_Standard_C_drivers: lsm6dso_reg.h, lsm6dsl_reg.h,
// lsm6ds3_reg.h and their *_self_test.c), the Linux kernel's st_lsm6dsx
// table and the LSM6DSO datasheet (DS12140); docs/DRIVER.md cites them.

private typealias Field = ChipProfile.Field

extension ChipProfile {
    /// The LSM6DS map: WHO_AM_I 0x0F; CTRL1_XL (ODR_XL, FS_XL), CTRL2_G
    /// (ODR_G, FS_G with FS_125), CTRL3_C (BOOT, BDU, IF_INC), CTRL5_C
    /// (ST_G, ST_XL); STATUS_REG 0x1E (XLDA, GDA, TDA), then the
    /// temperature (0x20), the gyroscope (0x22) and the accelerometer
    /// (0x28): one 16-byte burst. 16-bit outputs at every rate. The FIFO
    /// batches both sensors: tagged words on the LSM6DSO, a pattern of
    /// untagged words on the LSM6DSL and LSM6DS3 (`SixAxisFIFO`).
    private static func lsm6dsFamily(name: String, aliases: [String], whoAmI: UInt8, fastestRate: Int,
                                     accelerometerSelfTest: ClosedRange<Int>, zeroRateLevel: Double, noiseDensity: Double,
                                     fifo: SixAxisFIFO, latchRegister: UInt8) -> ChipProfile {
        // The wake-up unit's registers (ChipProfile+WakeUp.swift): LIR is
        // TAP_CFG0's (0x56) on the LSM6DSO, TAP_CFG's (0x58) on the others.
        // Its high-pass filter: SLOPE_FDS beside LIR, and CTRL8_XL's HPCF_XL
        // (3 bits on the LSM6DSO, 2 on the others).
        let wakeUpBaseline: [(register: UInt8, value: UInt8)] = Set([0x17, latchRegister, 0x58, 0x5B, 0x5C, 0x5E, 0x5F]).sorted().map { ($0, 0x00) }
        let wakeUpRegisters = [clears(0x1B, "WAKE_UP_SRC")] + (latchRegister == 0x56 ? [rw(0x56, "TAP_CFG0", [("SLOPE_FDS", 0x10), ("LIR", 0x01)])] : []) + [
            rw(0x58, latchRegister == 0x56 ? "TAP_CFG2" : "TAP_CFG",
               [("INTERRUPTS_ENABLE", 0x80)] + (latchRegister == 0x58 ? [("SLOPE_FDS", 0x10), ("LIR", 0x01)] : [])),
            rw(0x17, "CTRL8_XL", [("HPCF_XL", latchRegister == 0x56 ? 0xE0 : 0x60)]),
            rw(0x5B, "WAKE_UP_THS", [("WK_THS", 0x3F)]), rw(0x5C, "WAKE_UP_DUR", [("WAKE_DUR", 0x60)]),
            rw(0x5E, "MD1_CFG", [("INT1_WU", 0x20)]), rw(0x5F, "MD2_CFG", [("INT2_WU", 0x20)]),
        ]
        // 12.5 Hz (code 1) is left out: rates are whole hertz.
        let rates = [Rate(hertz: 26, code: 2), Rate(hertz: 52, code: 3), Rate(hertz: 104, code: 4), Rate(hertz: 208, code: 5),
                     Rate(hertz: 416, code: 6), Rate(hertz: 833, code: 7), Rate(hertz: 1660, code: 8), Rate(hertz: 3330, code: 9),
                     Rate(hertz: 6660, code: 10)].filter { $0.hertz <= fastestRate }
        var profile = ChipProfile(
            name: name,
            aliases: aliases,
            whoAmI: whoAmI,
            addresses: [0x6A, 0x6B],
            whoAmIRegister: 0x0F,
            autoIncrement: .controlBit(Field(0x12, mask: 0x04)),   // IF_INC
            statusRegister: 0x1E,
            controlBaseline: [
                (0x12, 0x44),  // CTRL3_C: BDU, IF_INC (first: every later burst walks)
                (0x10, 0x00),  // CTRL1_XL: ODR_XL and FS_XL set below
                (0x11, 0x00),  // CTRL2_G: ODR_G and FS_G set below
                (0x13, 0x00),  // CTRL4_C
                (0x14, 0x00),  // CTRL5_C: no self-test
                (0x0D, 0x00),  // INT1_CTRL: nothing on INT1 unless acceld listens there
                (0x0E, 0x00),  // INT2_CTRL: the same for INT2
            ] + wakeUpBaseline + fifo.control,
            rangeField: Field(0x10, mask: 0x0C),   // FS_XL
            rateField: Field(0x10, mask: 0xF0),    // ODR_XL
            powerField: Field(0x10, mask: 0xF0),   // ODR_XL = 0 is power-down
            bootField: Field(0x12, mask: 0x80),    // BOOT
            modes: [Mode(name: "high-performance", resolutionBits: 16, settings: [], rates: rates)],
            // FS_XL's codes are not in order: 00 ±2, 01 ±16, 10 ±4, 11 ±8 g.
            ranges: [
                Range(fullScale: 2, code: 0, gPerDigit: 0.000061), Range(fullScale: 4, code: 2, gPerDigit: 0.000122),
                Range(fullScale: 8, code: 3, gPerDigit: 0.000244), Range(fullScale: 16, code: 1, gPerDigit: 0.000488),
            ],
            // CTRL5_C ST_XL = 01 (positive); the change is published in mg
            // whatever the scale, given here in digits at ±2 g.
            selfTest: SelfTest(field: Field(0x14, mask: 0x03), code: 0b01, mode: "high-performance",
                               x: accelerometerSelfTest, y: accelerometerSelfTest, z: accelerometerSelfTest, magnitudeOnly: true),
            fifo: fifo.fifo,
            registers: [
                rw(0x01, "FUNC_CFG_ACCESS"),
                rw(0x0D, "INT1_CTRL", [("INT1_CNT_BDR", 0x40), ("INT1_FIFO_FULL", 0x20), ("INT1_FIFO_OVR", 0x10), ("INT1_FIFO_TH", 0x08),
                                       ("INT1_BOOT", 0x04), ("INT1_DRDY_G", 0x02), ("INT1_DRDY_XL", 0x01)]),
                rw(0x0E, "INT2_CTRL", [("INT2_CNT_BDR", 0x40), ("INT2_FIFO_FULL", 0x20), ("INT2_FIFO_OVR", 0x10), ("INT2_FIFO_TH", 0x08),
                                       ("INT2_DRDY_TEMP", 0x04), ("INT2_DRDY_G", 0x02), ("INT2_DRDY_XL", 0x01)]),
                ro(0x0F, "WHO_AM_I", reset: whoAmI),
                rw(0x10, "CTRL1_XL", [("ODR_XL", 0xF0), ("FS_XL", 0x0C)]),
                rw(0x11, "CTRL2_G", [("ODR_G", 0xF0), ("FS_G", 0x0C), ("FS_125", 0x02)]),
                rw(0x12, "CTRL3_C", reset: 0x04, [("BOOT", 0x80), ("BDU", 0x40), ("H_LACTIVE", 0x20), ("PP_OD", 0x10), ("SIM", 0x08),
                                                  ("IF_INC", 0x04), ("SW_RESET", 0x01)]),
                rw(0x13, "CTRL4_C"),
                rw(0x14, "CTRL5_C", [("ST_G", 0x0C), ("ST_XL", 0x03)]),
                rw(0x15, "CTRL6_C"), rw(0x16, "CTRL7_G"), rw(0x18, "CTRL9_XL"), rw(0x19, "CTRL10_C"),
                ro(0x1E, "STATUS_REG", [("TDA", 0x04), ("GDA", 0x02), ("XLDA", 0x01)]),
                ro(0x20, "OUT_TEMP_L"), ro(0x21, "OUT_TEMP_H"),
            ] + ["X", "Y", "Z"].enumerated().flatMap { index, axis in
                [ro(0x22 + UInt8(2 * index), "OUT\(axis)_L_G"), ro(0x23 + UInt8(2 * index), "OUT\(axis)_H_G")]
            } + ["X", "Y", "Z"].enumerated().flatMap { index, axis in
                [ro(0x28 + UInt8(2 * index), "OUT\(axis)_L_A"), ro(0x29 + UInt8(2 * index), "OUT\(axis)_H_A")]
            } + fifo.registers + wakeUpRegisters,
            // The kernel drops up to 2 accelerometer samples after turning
            // on at 104-416 Hz (st_lsm6dsx); the gyroscope settles over
            // more, which the fusion's start absorbs.
            turnOnPeriods: 2,
            bootMilliseconds: 10,
            rateTolerance: 0.10
        )
        profile.accelerometerOffset = 0x28 - 0x1E
        profile.statusBits = .sixAxis
        // FS_G and FS_125 (bits 3:1) as one field: 250 = 0, 125 = 1, 500 = 2, 1000 = 4, 2000 = 6.
        profile.gyroscope = Gyroscope(
            rangeField: Field(0x11, mask: 0x0E), rateField: Field(0x11, mask: 0xF0),
            ranges: [Gyroscope.Range(dps: 2000, code: 6, dpsPerDigit: 0.070), Gyroscope.Range(dps: 1000, code: 4, dpsPerDigit: 0.035),
                     Gyroscope.Range(dps: 500, code: 2, dpsPerDigit: 0.0175), Gyroscope.Range(dps: 250, code: 0, dpsPerDigit: 0.00875),
                     Gyroscope.Range(dps: 125, code: 1, dpsPerDigit: 0.004375)],
            dataOffset: 0x22 - 0x1E,
            // CTRL5_C ST_G = 01 (positive): 150 to 700 dps at ±2000 dps.
            selfTestField: Field(0x14, mask: 0x0C), selfTestCode: 0b01, selfTestRange: 2000, selfTestLimits: 150...700,
            zeroRateLevel: zeroRateLevel, noiseDensity: noiseDensity)
        return profile
    }

    // The zero-rate levels (G_TyOff, typical, ±dps) are the datasheets'
    // "Mechanical characteristics" tables: LSM6DSO DS12140 Table 2 (±1),
    // LSM6DSL DocID028475 Rev 7 Table 3 (±3), LSM6DS3 DocID026899 Table 3
    // (±10, as its sibling LSM6DS33's Table 3 has it). GyroscopeRest
    // judges against 3 × them. The acceleration noise densities (An, ±2 g,
    // high-performance mode) are in the same tables: 70, 80 and 90 µg/√Hz.

    /// LSM6DSO (and the LSM6DSOX, the same map with a machine-learning
    /// core): WHO_AM_I 0x6C. Accelerometer self-test 50 to 1700 mg.
    public static let lsm6dso = lsm6dsFamily(name: "LSM6DSO", aliases: ["LSM6DSOX"], whoAmI: 0x6C, fastestRate: 6660,
                                             accelerometerSelfTest: 820...27_869, zeroRateLevel: 1, noiseDensity: 0.0038,
                                             fifo: .lsm6dso, latchRegister: 0x56).accelerometerNoise(70e-6)

    /// LSM6DSL (and the LSM6DS3TR-C, which answers 0x6A as well and has
    /// the same map and scales). Accelerometer self-test 90 to 1700 mg.
    public static let lsm6dsl = lsm6dsFamily(name: "LSM6DSL", aliases: ["LSM6DS3TR-C"], whoAmI: 0x6A, fastestRate: 6660,
                                             accelerometerSelfTest: 1475...27_869, zeroRateLevel: 3, noiseDensity: 0.004,
                                             fifo: .pattern(words: 2048, levelMask: 0x07FF), latchRegister: 0x58).accelerometerNoise(80e-6)

    /// LSM6DS3: WHO_AM_I 0x69; its gyroscope stops at 1.66 kHz.
    public static let lsm6ds3 = lsm6dsFamily(name: "LSM6DS3", aliases: [], whoAmI: 0x69, fastestRate: 1660,
                                             accelerometerSelfTest: 1475...27_869, zeroRateLevel: 10, noiseDensity: 0.007,
                                             fifo: .pattern(words: 4096, levelMask: 0x0FFF), latchRegister: 0x58).accelerometerNoise(90e-6)
}

/// A six-axis part's FIFO: the table's entry, the control registers
/// configure writes (every one, never trusting what a previous user such
/// as st_lsm6dsx left) and the registers `accelctl dump` shows.
private struct SixAxisFIFO {
    let fifo: ChipProfile.FIFO
    let control: [(register: UInt8, value: UInt8)]
    let registers: [ChipProfile.Register]

    /// The LSM6DSO's (DS12140 §9, AN5192): 512 tagged words (TAG_SENSOR 1
    /// gyroscope, 2 accelerometer, 3 temperature, 4 timestamp, 5
    /// configuration change), both sensors batched at the output rate
    /// (BDR), continuous mode 6; FIFO_STATUS1/2 give DIFF_FIFO (10 bits,
    /// words), FIFO_WTM_IA, FIFO_OVR_IA and FIFO_OVR_LATCHED (cleared by
    /// reading FIFO_STATUS2).
    static let lsm6dso = SixAxisFIFO(
        fifo: ChipProfile.FIFO(
            layout: .tagged(gyroscope: 0x01, accelerometer: 0x02, ignored: [0x03, 0x04, 0x05]), depth: 512, enable: nil,
            batchRateFields: [Field(0x09, mask: 0x0F), Field(0x09, mask: 0xF0)], streamSettings: [],
            modeField: Field(0x0A, mask: 0x07), bypassCode: 0, streamCode: 0b110,
            watermarkField: Field(0x07, mask: 0xFF), statusRegister: 0x3A, statusLength: 2,
            watermarkFlag: 0x8000, overrunFlag: 0x4800, emptyFlag: 0, levelMask: 0x03FF, overrunMeansFull: false,
            dataRegister: 0x78),
        control: [
            (0x07, 0x00),  // FIFO_CTRL1: watermark (WTM7:0), set by the sampler
            (0x08, 0x00),  // FIFO_CTRL2: WTM8 and STOP_ON_WTM clear
            (0x09, 0x00),  // FIFO_CTRL3: BDR_GY and BDR_XL, the rate's code while streaming
            (0x0A, 0x00),  // FIFO_CTRL4: bypass unless streaming; no timestamp or temperature batched
        ],
        registers: [
            rw(0x07, "FIFO_CTRL1", [("WTM", 0xFF)]),
            rw(0x08, "FIFO_CTRL2", [("STOP_ON_WTM", 0x80), ("ODRCHG_EN", 0x10), ("UNCOPTR_RATE", 0x06), ("WTM8", 0x01)]),
            rw(0x09, "FIFO_CTRL3", [("BDR_GY", 0xF0), ("BDR_XL", 0x0F)]),
            rw(0x0A, "FIFO_CTRL4", [("DEC_TS_BATCH", 0xC0), ("ODR_T_BATCH", 0x30), ("FIFO_MODE", 0x07)]),
            ro(0x3A, "FIFO_STATUS1"),
            // Reading it clears FIFO_OVR_LATCHED; reading the data pops words.
            clears(0x3B, "FIFO_STATUS2"),
        ] + ["TAG", "X_L", "X_H", "Y_L", "Y_H", "Z_L", "Z_H"].enumerated().map { clears(0x78 + UInt8($0), "FIFO_DATA_OUT_\($1)") })

    /// The LSM6DSL's and LSM6DS3's (DocID028475 §8, AN5040; DocID026899,
    /// AN4650; st_lsm6dsx): `words` 16-bit words, both sensors undecimated
    /// (FIFO_CTRL3's DEC_FIFO_GYRO and DEC_FIFO_XL 1) at the output rate
    /// (FIFO_CTRL5's ODR_FIFO), so the pattern is Gx Gy Gz Ax Ay Az;
    /// continuous mode 6; FIFO_STATUS1/2 give DIFF_FIFO (words; 0 when
    /// full, with FIFO_OVER_RUN), FIFO_EMPTY and the watermark,
    /// FIFO_STATUS3/4 the pattern's next word (FIFO_PATTERN).
    static func pattern(words: Int, levelMask: UInt32) -> SixAxisFIFO {
        SixAxisFIFO(
            fifo: ChipProfile.FIFO(
                layout: .pattern(patternMask: 0x03FF_0000), depth: words, enable: nil,
                batchRateFields: [Field(0x0A, mask: 0x78)], streamSettings: [ChipProfile.Setting(Field(0x08, mask: 0x38), 1), ChipProfile.Setting(Field(0x08, mask: 0x07), 1)],
                modeField: Field(0x0A, mask: 0x07), bypassCode: 0, streamCode: 0b110,
                watermarkField: Field(0x06, mask: 0xFF), statusRegister: 0x3A, statusLength: 4,
                watermarkFlag: 0x8000, overrunFlag: 0x4000, emptyFlag: 0x1000, levelMask: levelMask, overrunMeansFull: true,
                dataRegister: 0x3E),
            control: [
                (0x06, 0x00),  // FIFO_CTRL1: watermark (FTH7:0), set by the sampler
                (0x07, 0x00),  // FIFO_CTRL2: FTH's high bits clear, no step counter or timestamp batched
                (0x08, 0x00),  // FIFO_CTRL3: the decimations, 1 while streaming
                (0x09, 0x00),  // FIFO_CTRL4: no third or fourth data set, STOP_ON_FTH clear
                (0x0A, 0x00),  // FIFO_CTRL5: ODR_FIFO the rate's code and continuous while streaming, else bypass
            ],
            registers: [
                rw(0x06, "FIFO_CTRL1", [("FTH", 0xFF)]), rw(0x07, "FIFO_CTRL2"),
                rw(0x08, "FIFO_CTRL3", [("DEC_FIFO_GYRO", 0x38), ("DEC_FIFO_XL", 0x07)]), rw(0x09, "FIFO_CTRL4"),
                rw(0x0A, "FIFO_CTRL5", [("ODR_FIFO", 0x78), ("FIFO_MODE", 0x07)]),
                ro(0x3A, "FIFO_STATUS1"), ro(0x3B, "FIFO_STATUS2", [("WTM", 0x80), ("OVER_RUN", 0x40), ("FIFO_FULL", 0x20), ("FIFO_EMPTY", 0x10)]),
                ro(0x3C, "FIFO_STATUS3"), ro(0x3D, "FIFO_STATUS4"),
                // Reading the high byte pops the word.
                clears(0x3E, "FIFO_DATA_OUT_L"), clears(0x3F, "FIFO_DATA_OUT_H"),
            ])
    }
}
