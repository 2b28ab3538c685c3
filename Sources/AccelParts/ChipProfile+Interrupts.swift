// SPDX-License-Identifier: Apache-2.0
// The INT pins of each part, as data: which bits route data-ready, the
// FIFO watermark and the FIFO overrun to INT1 or INT2, and which bit sets
// the pins' active level. Facts from the datasheets' CTRL_REG3 / CTRL_REG6
// / INT1_CTRL / INT2_CTRL / CTRL3_C, cross-checked against the kernel's
// st_accel (drdy_irq) and st_lsm6dsx (irq_config) tables; docs/DRIVER.md
// cites them.

private typealias Field = ChipProfile.Field
private typealias Setting = ChipProfile.Setting

extension ChipProfile {
    /// A pin the part can drive.
    public enum InterruptPin: String, Sendable, CaseIterable, Codable {
        case int1, int2

        public var label: String { rawValue.uppercased() }
    }

    /// What the chip can say on a pin.
    public enum InterruptSignal: String, Sendable, CaseIterable {
        /// A new sample waits in the output registers (ZYXDA, XLDA).
        case dataReady = "data-ready"
        /// The FIFO holds more than its watermark.
        case watermark
        /// The FIFO overwrote or dropped samples.
        case overrun
        /// The wake-up unit saw motion (ChipProfile+WakeUp.swift).
        case wakeUp = "wake-up"
    }

    /// How a part's signals reach its pins.
    public struct InterruptPins: Sendable, Equatable {
        /// One way a signal reaches a pin: the settings that route it.
        public struct Route: Sendable, Equatable {
            public let pin: InterruptPin
            public let signal: InterruptSignal
            public let settings: [Setting]
        }

        public let routes: [Route]
        /// The setting that makes both pins active high (the default on
        /// every part here: a rising edge is news).
        public let activeHigh: Setting

        /// The settings that route `signal` to `pin`; nil where the part
        /// cannot (the LIS3DH's INT2 carries no data-ready).
        public func route(_ signal: InterruptSignal, to pin: InterruptPin) -> [Setting]? {
            routes.first { $0.pin == pin && $0.signal == signal }?.settings
        }

        /// The signals `pin` can carry.
        public func signals(on pin: InterruptPin) -> [InterruptSignal] {
            routes.filter { $0.pin == pin }.map(\.signal)
        }
    }

    /// The part's INT pins; nil for a part whose pins are not in the table.
    public var interruptPins: InterruptPins? {
        switch name {
        case "LIS302DL": .lis302dl
        case "LIS331DLH", "LIS331HH", "H3LIS331DL": .lis331
        case "LIS3DH", "LIS2DH12": .lis3dh
        case "LIS3DSH": .lis3dsh
        case "LSM6DSO", "LSM6DSL", "LSM6DS3": .lsm6ds
        default: nil
        }
    }
}

extension ChipProfile.InterruptPins {
    /// CTRL_REG3 (0x22): IHL, PP_OD, I2CFG[2:0], I1CFG[2:0]; code 100 is
    /// data ready on either pin, 001 the FF_WU_1 unit. No FIFO.
    static let lis302dl = Self(routes: [
        Route(pin: .int1, signal: .dataReady, settings: [Setting(Field(0x22, mask: 0x07), 0b100)]),
        Route(pin: .int2, signal: .dataReady, settings: [Setting(Field(0x22, mask: 0x38), 0b100)]),
        Route(pin: .int1, signal: .wakeUp, settings: [Setting(Field(0x22, mask: 0x07), 0b001)]),
        Route(pin: .int2, signal: .wakeUp, settings: [Setting(Field(0x22, mask: 0x38), 0b001)]),
    ], activeHigh: Setting(Field(0x22, mask: 0x80), 0))

    /// CTRL_REG3 (0x22): IHL, PP_OD, LIR2, I2_CFG[1:0], LIR1, I1_CFG[1:0];
    /// code 10 is data ready; INT1's 00 is the IA1 unit, INT2's 01 IA1 or
    /// IA2. No FIFO.
    static let lis331 = Self(routes: [
        Route(pin: .int1, signal: .dataReady, settings: [Setting(Field(0x22, mask: 0x03), 0b10)]),
        Route(pin: .int2, signal: .dataReady, settings: [Setting(Field(0x22, mask: 0x18), 0b10)]),
        Route(pin: .int1, signal: .wakeUp, settings: [Setting(Field(0x22, mask: 0x03), 0b00)]),
        Route(pin: .int2, signal: .wakeUp, settings: [Setting(Field(0x22, mask: 0x18), 0b01)]),
    ], activeHigh: Setting(Field(0x22, mask: 0x80), 0))

    /// CTRL_REG3 (0x22) routes to INT1: I1_ZYXDA, I1_WTM, I1_OVERRUN,
    /// I1_IA1. CTRL_REG6 (0x25) routes to INT2 click, IA1, activity and
    /// boot only, and holds INT_POLARITY for both pins.
    static let lis3dh = Self(routes: [
        Route(pin: .int1, signal: .dataReady, settings: [Setting(Field(0x22, mask: 0x10), 1)]),
        Route(pin: .int1, signal: .watermark, settings: [Setting(Field(0x22, mask: 0x04), 1)]),
        Route(pin: .int1, signal: .overrun, settings: [Setting(Field(0x22, mask: 0x02), 1)]),
        Route(pin: .int1, signal: .wakeUp, settings: [Setting(Field(0x22, mask: 0x40), 1)]),
        Route(pin: .int2, signal: .wakeUp, settings: [Setting(Field(0x25, mask: 0x40), 1)]),
    ], activeHigh: Setting(Field(0x25, mask: 0x02), 0))

    /// CTRL_REG3 (0x23): DR_EN routes data ready to INT1, which INT1_EN
    /// turns on; IEA = 1 is active high. CTRL_REG6 (0x25): P1_WTM, P1_OVERRUN.
    static let lis3dsh = Self(routes: [
        Route(pin: .int1, signal: .dataReady, settings: [Setting(Field(0x23, mask: 0x80), 1), Setting(Field(0x23, mask: 0x08), 1)]),
        Route(pin: .int1, signal: .watermark, settings: [Setting(Field(0x25, mask: 0x04), 1), Setting(Field(0x23, mask: 0x08), 1)]),
        Route(pin: .int1, signal: .overrun, settings: [Setting(Field(0x25, mask: 0x02), 1), Setting(Field(0x23, mask: 0x08), 1)]),
    ], activeHigh: Setting(Field(0x23, mask: 0x40), 1))

    /// INT1_CTRL (0x0D) and INT2_CTRL (0x0E), the same bits:
    /// INT_DRDY_XL, INT_FIFO_TH, INT_FIFO_OVR; MD1_CFG (0x5E) and MD2_CFG
    /// (0x5F): INT1_WU, INT2_WU. CTRL3_C (0x12): H_LACTIVE.
    static let lsm6ds = Self(routes: [
        Route(pin: .int1, signal: .dataReady, settings: [Setting(Field(0x0D, mask: 0x01), 1)]),
        Route(pin: .int1, signal: .watermark, settings: [Setting(Field(0x0D, mask: 0x08), 1)]),
        Route(pin: .int1, signal: .overrun, settings: [Setting(Field(0x0D, mask: 0x10), 1)]),
        Route(pin: .int2, signal: .dataReady, settings: [Setting(Field(0x0E, mask: 0x01), 1)]),
        Route(pin: .int2, signal: .watermark, settings: [Setting(Field(0x0E, mask: 0x08), 1)]),
        Route(pin: .int2, signal: .overrun, settings: [Setting(Field(0x0E, mask: 0x10), 1)]),
        Route(pin: .int1, signal: .wakeUp, settings: [Setting(Field(0x5E, mask: 0x20), 1)]),
        Route(pin: .int2, signal: .wakeUp, settings: [Setting(Field(0x5F, mask: 0x20), 1)]),
    ], activeHigh: Setting(Field(0x12, mask: 0x20), 0))
}
