// SPDX-License-Identifier: Apache-2.0

/// The last few windows' envelope spectra averaged (Welch): a bearing's
/// lines are the same in every window and the noise is not, so the floor
/// settles and the lines stand out of it. After a gap the average starts
/// again: no figure spans lost samples.
public struct EnvelopeAverage: Sendable {
    /// Spectra averaged at most.
    public let capacity: Int
    private var spectra: [Spectrum] = []
    private var next = 0

    public init(capacity: Int) {
        self.capacity = max(1, capacity)
        spectra.reserveCapacity(self.capacity)
    }

    /// Adds a window's envelope spectrum; the average of the newest ones.
    public mutating func add(_ spectrum: Spectrum) -> Spectrum {
        if spectra.count < capacity {
            spectra.append(spectrum)
        } else {
            spectra[next] = spectrum
            next = (next + 1) % capacity
        }
        // Summed afresh each time, not kept as a running sum: one that
        // subtracted the oldest would drift over months of windows.
        var average = spectra[0]
        for other in spectra.dropFirst() { average.average(with: other) }
        return average
    }

    public mutating func reset() {
        spectra.removeAll(keepingCapacity: true)
        next = 0
    }
}
