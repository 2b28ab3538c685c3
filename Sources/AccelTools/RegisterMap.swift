// SPDX-License-Identifier: Apache-2.0
import AccelDriver

/// The LIS302DL's registers with names and decoders, for `accelctl dump`.
public struct RegisterDescription: Sendable {
    public let address: UInt8
    public let name: String
    /// Reading it changes the chip (clears a latch, resets a filter): skipped.
    public let readHasSideEffect: Bool
    public let decode: @Sendable (UInt8) -> String
}

public enum RegisterMap {
    static func bit(_ v: UInt8, _ n: Int) -> Int { Int(v >> UInt8(n) & 1) }

    static func sources(_ v: UInt8) -> String {
        let names = ["XL", "XH", "YL", "YH", "ZL", "ZH"]
        let set = names.enumerated().filter { v & (1 << UInt8($0.offset)) != 0 }.map(\.element)
        return set.isEmpty ? "none" : set.joined(separator: " ")
    }

    static func freeFallUnit(_ n: Int, base: UInt8) -> [RegisterDescription] {
        [
            RegisterDescription(address: base, name: "FF_WU_CFG_\(n)", readHasSideEffect: false) { v in
                "AOI=\(bit(v, 7) == 1 ? "AND" : "OR") LIR=\(bit(v, 6)) enabled: \(sources(v & 0x3F))"
            },
            RegisterDescription(address: base + 1, name: "FF_WU_SRC_\(n)", readHasSideEffect: true) { _ in "" },
            RegisterDescription(address: base + 2, name: "FF_WU_THS_\(n)", readHasSideEffect: false) { v in
                "DCRM=\(bit(v, 7)) THS=\(v & 0x7F) (\(Int(v & 0x7F) * 18) mg at ±2 g)"
            },
            RegisterDescription(address: base + 3, name: "FF_WU_DURATION_\(n)", readHasSideEffect: false) { v in
                "\(v) (\(Int(v) * 10) ms at 100 Hz)"
            },
        ]
    }

    static func output(_ axis: String, _ address: UInt8) -> RegisterDescription {
        RegisterDescription(address: address, name: "OUT_\(axis)", readHasSideEffect: false) { v in
            let digits = Int(Int8(bitPattern: v))
            return "\(digits) digits (\(fixed(Double(digits) * 0.018, 3)) g at ±2 g, \(fixed(Double(digits) * 0.072, 3)) g at ±8 g)"
        }
    }

    /// Every register the datasheet defines, in address order.
    public static let lis302dl: [RegisterDescription] = [
        RegisterDescription(address: 0x0F, name: "WHO_AM_I", readHasSideEffect: false) { v in
            v == 0x3B ? "LIS302DL/LIS331DL" : (ChipProfile.relatives[v] ?? "not a known part")
        },
        RegisterDescription(address: 0x20, name: "CTRL_REG1", readHasSideEffect: false) { v in
            let axes = ["X", "Y", "Z"].enumerated().filter { v & (1 << UInt8($0.offset)) != 0 }.map(\.element).reversed()
            return "DR=\(bit(v, 7) == 1 ? 400 : 100) Hz PD=\(bit(v, 6) == 1 ? "on" : "off (powered down)") FS=±\(bit(v, 5) == 1 ? 8 : 2)g STP=\(bit(v, 4)) STM=\(bit(v, 3)) \(axes.isEmpty ? "no axes" : axes.joined(separator: " ")) enabled"
        },
        RegisterDescription(address: 0x21, name: "CTRL_REG2", readHasSideEffect: false) { v in
            let k = 8 << Int(v & 3)
            return "SIM=\(bit(v, 7)) BOOT=\(bit(v, 6)) FDS=\(bit(v, 4))\(bit(v, 4) == 1 ? " (outputs high-passed!)" : "") HP_FF_WU2=\(bit(v, 3)) HP_FF_WU1=\(bit(v, 2)) HP_coeff=\(v & 3) (cut-off ODR/\(6 * k))"
        },
        RegisterDescription(address: 0x22, name: "CTRL_REG3", readHasSideEffect: false) { v in
            let sources = ["GND", "FF_WU_1", "FF_WU_2", "FF_WU_1 or 2", "data ready", "?", "?", "click"]
            return "IHL=\(bit(v, 7) == 1 ? "active low" : "active high") PP_OD=\(bit(v, 6) == 1 ? "open drain" : "push-pull") INT2=\(sources[Int(v >> 3 & 7)]) INT1=\(sources[Int(v & 7)])"
        },
        RegisterDescription(address: 0x23, name: "HP_FILTER_RESET", readHasSideEffect: true) { _ in "" },
        RegisterDescription(address: 0x27, name: "STATUS_REG", readHasSideEffect: false) { v in
            "ZYXOR=\(bit(v, 7)) ZOR=\(bit(v, 6)) YOR=\(bit(v, 5)) XOR=\(bit(v, 4)) ZYXDA=\(bit(v, 3)) ZDA=\(bit(v, 2)) YDA=\(bit(v, 1)) XDA=\(bit(v, 0))"
        },
        output("X", 0x29), output("Y", 0x2B), output("Z", 0x2D),
    ] + freeFallUnit(1, base: 0x30) + freeFallUnit(2, base: 0x34) + [
        RegisterDescription(address: 0x38, name: "CLICK_CFG", readHasSideEffect: false) { v in
            "LIR=\(bit(v, 6)) double Z=\(bit(v, 5)) single Z=\(bit(v, 4)) double Y=\(bit(v, 3)) single Y=\(bit(v, 2)) double X=\(bit(v, 1)) single X=\(bit(v, 0))"
        },
        RegisterDescription(address: 0x39, name: "CLICK_SRC", readHasSideEffect: true) { _ in "" },
        RegisterDescription(address: 0x3B, name: "CLICK_THSY_X", readHasSideEffect: false) { v in
            "Y=\(v >> 4) X=\(v & 0xF) (0.5 g per step)"
        },
        RegisterDescription(address: 0x3C, name: "CLICK_THSZ", readHasSideEffect: false) { v in "Z=\(v & 0xF) (0.5 g per step)" },
        RegisterDescription(address: 0x3D, name: "CLICK_TimeLimit", readHasSideEffect: false) { v in "\(fixed(Double(v) * 0.5, 1)) ms" },
        RegisterDescription(address: 0x3E, name: "CLICK_Latency", readHasSideEffect: false) { v in "\(v) ms" },
        RegisterDescription(address: 0x3F, name: "CLICK_Window", readHasSideEffect: false) { v in "\(v) ms" },
    ]

    /// Address ranges the datasheet reserves.
    public static let reserved: [ClosedRange<UInt8>] = [0x00...0x0E, 0x10...0x1F, 0x24...0x26, 0x28...0x28, 0x2A...0x2A, 0x2C...0x2C, 0x2E...0x2F, 0x3A...0x3A]
}
