// SPDX-License-Identifier: Apache-2.0
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A line of an order's family and the envelope spectrum's floor around it.
public struct FamilyLine: Sendable, Equatable {
    public var frequency: Double
    /// g, peak.
    public var amplitude: Double
    /// The floor's amplitude around the line, g: the median of the bins
    /// near it, the line's own left out.
    public var floor: Double

    /// The line's height over the floor, dB.
    public var height: Double { 20 * log10(max(amplitude, 1e-12) / max(floor, 1e-12)) }
}

/// What an averaged envelope spectrum shows of one order: its 1×, 2×, 3×
/// lines, the sidebands that belong to it, and a defect indicator.
public struct OrderFamily: Sendable, Equatable {
    public var name: String
    /// The order's frequency at the shaft's speed, Hz.
    public var frequency: Double
    /// 1×, 2×, ...: nil where the spectrum has no line (or it lies above
    /// the band the envelope can show).
    public var harmonics: [FamilyLine?]
    /// Below and above the 1× line, at the modulating frequency (the shaft
    /// for an inner race, the cage for a rolling element); empty for the
    /// orders nothing modulates.
    public var sidebands: [FamilyLine?]

    /// The family's power over the floor's in the same bins, dB: 0 for
    /// noise, rising with every harmonic a defect rings at. A harmonic
    /// without a line counts as floor.
    public var indicator: Double {
        var lines = 0.0, floors = 0.0
        for line in harmonics.compactMap({ $0 }) {
            lines += line.amplitude * line.amplitude
            floors += line.floor * line.floor
        }
        guard floors > 0 else { return 0 }
        return 10 * log10(max(lines / floors, 1e-12))
    }
}

extension Spectrum {
    /// Bins either side of a line whose median is its floor, and the bins
    /// next to it left out (a Hann-windowed line spreads over two).
    static let floorReach = 25, floorGap = 3

    /// The median amplitude of the bins around `frequency`.
    public func floor(around frequency: Double) -> Double {
        let centre = Int((frequency / binWidth).rounded())
        let low = max(1, centre - Self.floorReach), high = min(power.count - 1, centre + Self.floorReach)
        guard low < high else { return 0 }
        let near = (low...high).filter { abs($0 - centre) >= Self.floorGap }.map { amplitude(bin: $0) }.sorted()
        return near.isEmpty ? 0 : near[near.count / 2]
    }

    /// The strongest line within `bins` bins of `frequency`, with its floor.
    func familyLine(near frequency: Double, bins: Double, below limit: Double) -> FamilyLine? {
        guard frequency + bins * binWidth < limit,
              let peak = line(near: frequency, within: bins * binWidth) else { return nil }
        return FamilyLine(frequency: peak.frequency, amplitude: peak.amplitude, floor: floor(around: peak.frequency))
    }

    /// Each order's family, looked for below `limit` Hz (the envelope's
    /// bandwidth): the 1× line within `bins` bins of the order, each
    /// harmonic within as many of the multiple of the 1× line found (a
    /// shaft that turns 1 % slow moves the 3× line three times as far), or
    /// of the order where there is no 1× line.
    public func families(of orders: MachineOrders, bins: Double, below limit: Double) -> [OrderFamily] {
        let modulators = orders.modulators
        return orders.frequencies.map { name, frequency in
            let first = familyLine(near: frequency, bins: bins, below: limit)
            let base = first?.frequency ?? frequency
            let harmonics = [first] + (1..<max(1, orders.harmonics)).map { h in
                familyLine(near: base * Double(h + 1), bins: bins, below: limit)
            }
            let sidebands = modulators[name].map { spacing in
                [familyLine(near: base - spacing, bins: bins, below: limit), familyLine(near: base + spacing, bins: bins, below: limit)]
            } ?? []
            return OrderFamily(name: name, frequency: frequency, harmonics: harmonics, sidebands: sidebands)
        }
    }
}

extension MachineOrders {
    /// What modulates each order's strikes: the shaft an inner race's (the
    /// defect turns in and out of the load zone), the cage a rolling
    /// element's.
    public var modulators: [String: Double] {
        var modulators = ["bpfi": shaft]
        if let bearing { modulators["bsf"] = bearing.ftf * shaft }
        return modulators
    }
}
