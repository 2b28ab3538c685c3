// SPDX-License-Identifier: Apache-2.0

extension ChipProfile {
    /// From this rate on, a sample must be read within a millisecond of
    /// the next unless a FIFO holds it: kHz rates need a part with one.
    public static let kilohertz = 1_000

    /// Where kHz rates are possible, in words: the parts with a FIFO and a
    /// rate of 1 kHz or more.
    public static var partsForKilohertz: String {
        "kHz rates need a part with a FIFO: "
            + supported.filter { $0.fifo != nil && $0.allRates.contains { $0 >= kilohertz } }.map(\.name).joined(separator: ", ")
    }
}
