// SPDX-License-Identifier: Apache-2.0

/// The zones of ISO 10816 / 20816: A (new machines), B (unrestricted long-
/// term operation), C (restricted: plan a repair), D (damage likely).
public enum SeverityZone: String, Sendable, CaseIterable {
    case a = "A", b = "B", c = "C", d = "D"
}

/// A machine class and its zone boundaries (A/B, B/C, C/D, velocity RMS in
/// mm/s). Classes I to IV are ISO 10816-1's Annex B (I: small machines up
/// to 15 kW; II: medium, 15 to 75 kW, or up to 300 kW on special
/// foundations; III: large, rigid foundations; IV: large, soft
/// foundations); the groups are ISO 20816-3's (group 1: 300 kW to 50 MW;
/// group 2: 15 to 300 kW; each on a rigid or a flexible support).
public struct MachineClass: Sendable, Equatable {
    public let name: String
    public let boundaries: (ab: Double, bc: Double, cd: Double)

    public static let all: [MachineClass] = [
        MachineClass(name: "I", boundaries: (0.71, 1.8, 4.5)),
        MachineClass(name: "II", boundaries: (1.12, 2.8, 7.1)),
        MachineClass(name: "III", boundaries: (1.8, 4.5, 11.2)),
        MachineClass(name: "IV", boundaries: (2.8, 7.1, 18)),
        MachineClass(name: "group1-rigid", boundaries: (2.3, 4.5, 7.1)),
        MachineClass(name: "group1-flexible", boundaries: (3.5, 7.1, 11)),
        MachineClass(name: "group2-rigid", boundaries: (1.4, 2.8, 4.5)),
        MachineClass(name: "group2-flexible", boundaries: (2.3, 4.5, 7.1)),
    ]

    public static func named(_ name: String) -> MachineClass? {
        all.first { $0.name.lowercased() == name.lowercased() }
    }

    /// The zone of a velocity RMS (mm/s); a value on a boundary is in the
    /// worse zone.
    public func zone(velocity: Double) -> SeverityZone {
        if velocity >= boundaries.cd { return .d }
        if velocity >= boundaries.bc { return .c }
        if velocity >= boundaries.ab { return .b }
        return .a
    }

    public static func == (a: MachineClass, b: MachineClass) -> Bool { a.name == b.name }
}
