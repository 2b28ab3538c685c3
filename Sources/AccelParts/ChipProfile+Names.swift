// SPDX-License-Identifier: Apache-2.0
import AccelCore
/// The table of parts as people read it: in messages, completions and help.
extension ChipProfile {
    /// The parts in the order people are shown them: the 3-axis parts, then
    /// the six-axis ones, each group alphabetical.
    public static var inReadingOrder: [ChipProfile] {
        let threeAxis: [ChipProfile] = supported.filter { $0.gyroscope == nil }.sorted { $0.name < $1.name }
        let sixAxis: [ChipProfile] = supported.filter { $0.gyroscope != nil }.sorted { $0.name < $1.name }
        return threeAxis + sixAxis
    }

    /// Every name a person may give, each part followed by its other names.
    public static var partNames: [String] { inReadingOrder.flatMap { [$0.name] + $0.aliases } }

    /// "3-axis: H3LIS331DL, ..., LIS302DL (or LIS331DL), ...; six-axis: LSM6DS3, ...".
    public static var partList: String {
        func names(_ parts: [ChipProfile]) -> String {
            parts.map { $0.aliases.isEmpty ? $0.name : "\($0.name) (or \($0.aliases.joined(separator: ", ")))" }.joined(separator: ", ")
        }
        let (threeAxis, sixAxis) = (inReadingOrder.filter { $0.gyroscope == nil }, inReadingOrder.filter { $0.gyroscope != nil })
        return "3-axis: \(names(threeAxis)); six-axis: \(names(sixAxis))"
    }

    /// Where an address was not one at all: the table's addresses, by part.
    /// An --address the chip model cannot answer at: the part it plays
    /// straps to its own addresses only. Nil when `address` is one.
    public func simulatedAddressProblem(_ address: UInt8) -> String? {
        guard !addresses.contains(address) else { return nil }
        return "--address \(hex(address)): the chip model plays the \(name), which answers at \(addresses.map(hex).joined(separator: " or ")) only; leave --address out with --simulate, or name a part at \(hex(address)) with --part"
    }

    public static var addressAdvice: String {
        // Spelt out step by step: as one expression, Swift 6.2's type
        // checker gave up on it ("unable to type-check ... in reasonable time").
        let groups: [(key: [UInt8], names: [String])] = grouped(inReadingOrder, by: \.addresses, names: { [$0.name] })
        let entries: [String] = groups.map { group in
            let addresses: String = group.key.map(hex).joined(separator: " or ")
            return "\(addresses) (\(group.names.joined(separator: ", ")))"
        }
        return "use one in the table of parts: \(entries.joined(separator: "; ")). The 8-bit forms (twice these) are not addresses"
    }

    /// "LIS302DL/LIS331DL with 0x3b, LIS331DLH/LIS331HH/H3LIS331DL with 0x32, ...".
    public static var summary: String {
        let groups: [(key: UInt8, names: [String])] = grouped(supported, by: \.whoAmI, names: { [$0.name] + $0.aliases })
        return groups.map { "\($0.names.joined(separator: "/")) with \(hex($0.key))" }.joined(separator: ", ")
    }

    /// The parts' names gathered under each value of `key`, in the order
    /// the values first appear.
    private static func grouped<Key: Equatable>(_ parts: [ChipProfile], by key: (ChipProfile) -> Key,
                                                names: (ChipProfile) -> [String]) -> [(key: Key, names: [String])] {
        var groups: [(key: Key, names: [String])] = []
        for profile in parts {
            if let index = groups.firstIndex(where: { $0.key == key(profile) }) { groups[index].names += names(profile) }
            else { groups.append((key(profile), names(profile))) }
        }
        return groups
    }
}
