// SPDX-License-Identifier: Apache-2.0

extension OrderFamily {
    /// Sidebands a present family claims each side of each harmonic: an
    /// inner race's strikes, modulated once a turn, ring a comb of them.
    static let claimedSidebands = 4

    /// `families` with each line that a stronger family explains taken out
    /// of the weaker ones, as a specialist reads an envelope spectrum: the
    /// strongest family over `present` dB claims its harmonics and their
    /// sidebands (± the modulating frequency, up to four each side), then
    /// the next, and a weaker family's line within `bins` bins of a
    /// claimed frequency no longer counts for it. Without this, a ball's
    /// 3× line that sits on the inner race's third sideband would raise
    /// an alarm for a ball the bearing does not have.
    public static func attributed(_ families: [OrderFamily], present: Double, bins: Double, binWidth: Double,
                                  modulators: [String: Double]) -> [OrderFamily] {
        var claimed: [Double] = []
        var result = families
        let reach = bins * binWidth
        for index in families.indices.sorted(by: { families[$0].indicator > families[$1].indicator }) {
            var family = result[index]
            family.harmonics = family.harmonics.map { line in
                line.flatMap { line in claimed.contains { abs($0 - line.frequency) <= reach } ? nil : line }
            }
            result[index] = family
            guard family.indicator >= present else { continue }
            let spacing = modulators[family.name] ?? 0
            let sidebands = spacing > 0 ? Self.claimedSidebands : 0
            for line in family.harmonics.compactMap({ $0 }) {
                for k in -sidebands...sidebands { claimed.append(line.frequency + Double(k) * spacing) }
            }
        }
        return result
    }
}
