// SPDX-License-Identifier: Apache-2.0
import AccelCore

/// A client's vibration windows: the watch's `"vibration"` object.
public struct VibrationWatch: Sendable, Hashable {
    /// Window length, s.
    public var window: Double
    /// Fraction of a window shared with the next.
    public var overlap: Double
    /// Bins of the spectrum sent with each window; 0: none.
    public var spectrumBins: Int
    /// Bins of the envelope's spectrum; 0: none.
    public var envelopeBins: Int

    public init(window: Double = 1, overlap: Double = 0.5, spectrumBins: Int = 0, envelopeBins: Int = 0) {
        self.window = window
        self.overlap = overlap
        self.spectrumBins = spectrumBins
        self.envelopeBins = envelopeBins
    }

    public static let maximumBins = 4_096

    var json: String {
        var line = JSONLine()
        line.add("window", number: window)
        line.add("overlap", number: overlap)
        if spectrumBins > 0 { line.add("spectrum", spectrumBins) }
        if envelopeBins > 0 { line.add("envelope", envelopeBins) }
        return String(decoding: line.finished(), as: UTF8.self)
    }

    /// From the request's object; each bad field named.
    init<Failure: Error>(_ object: [String: JSONValue], error: (String) -> Failure) throws(Failure) {
        self.init()
        for key in object.keys where !["window", "overlap", "spectrum", "envelope"].contains(key) {
            throw error("\"vibration\" has no field \"\(key)\": it takes window (s), overlap, spectrum and envelope (bins)")
        }
        func number(_ key: String, _ allowed: ClosedRange<Double>) throws(Failure) -> Double? {
            guard let raw = object[key] else { return nil }
            guard let value = raw.number, allowed.contains(value) else {
                throw error("\"vibration\".\"\(key)\" must be a number from \(allowed.lowerBound) to \(allowed.upperBound)")
            }
            return value
        }
        window = try number("window", 0.05...60) ?? window
        overlap = try number("overlap", 0...0.9) ?? overlap
        spectrumBins = Int(try number("spectrum", 0...Double(Self.maximumBins)) ?? 0)
        envelopeBins = Int(try number("envelope", 0...Double(Self.maximumBins)) ?? 0)
    }
}

/// One window's analysis (docs/VIBRATION.md): the `vibration` message.
public struct VibrationMessage: Sendable, Equatable {
    /// One axis's figures, its mean removed: g, and mm/s for velocity.
    public struct Axis: Sendable, Equatable {
        public var rms, peak, peakToPeak, crest, kurtosis, velocity: Double
        /// The axis's strongest line: [Hz, g].
        public var dominant: [Double]?
        public init(rms: Double, peak: Double, peakToPeak: Double, crest: Double, kurtosis: Double, velocity: Double, dominant: [Double]?) {
            (self.rms, self.peak, self.peakToPeak, self.crest, self.kurtosis, self.velocity) = (rms, peak, peakToPeak, crest, kurtosis, velocity)
            self.dominant = dominant
        }
    }

    /// A configured frequency: its 1× line's amplitude in the window's
    /// spectrum and in its envelope's (g), nil where there is no line; its
    /// family in the averaged envelope spectrum, each line [Hz, g, dB over
    /// the floor] (nil where none stands), the family's indicator (dB) and,
    /// for a bearing's order, its condition.
    public struct Order: Sendable, Equatable {
        public var name: String
        public var frequency: Double
        public var amplitude: Double?
        public var envelope: Double?
        public var family: [[Double]?]
        public var sidebands: [[Double]?]
        public var indicator: Double?
        public var condition: String?
        public init(name: String, frequency: Double, amplitude: Double?, envelope: Double?,
                    family: [[Double]?] = [], sidebands: [[Double]?] = [], indicator: Double? = nil, condition: String? = nil) {
            (self.name, self.frequency, self.amplitude, self.envelope) = (name, frequency, amplitude, envelope)
            (self.family, self.sidebands, self.indicator, self.condition) = (family, sidebands, indicator, condition)
        }
    }

    /// The bearing's worst order: its condition, name and indicator (dB).
    public struct Bearing: Sendable, Equatable {
        public var condition: String
        public var order: String
        public var indicator: Double
        public init(condition: String, order: String, indicator: Double) {
            (self.condition, self.order, self.indicator) = (condition, order, indicator)
        }
    }

    /// A spectrum reduced to the bins a client asked for: each the largest
    /// amplitude (g) of the `step` Hz it covers.
    public struct Bins: Sendable, Equatable {
        public var step: Double
        public var amplitudes: [Double]
        public init(step: Double, amplitudes: [Double]) { self.step = step; self.amplitudes = amplitudes }
    }

    /// The window's first sample: its time (s) and number.
    public var t: Double
    public var seq: UInt64
    public var duration: Double
    public var rate: Double
    public var x, y, z: Axis
    /// The vector: RMS, peak, crest, velocity RMS.
    public var rms, peak, crest, velocity: Double
    /// The velocity's band, Hz.
    public var band: [Double]
    /// The ISO zone, where the configuration names a machine class.
    public var zone: String?
    /// The strongest lines, [Hz, g], strongest first.
    public var peaks: [[Double]]
    public var envelopeBand: [Double]
    public var envelopePeaks: [[Double]]
    public var shaft: Double?
    public var orders: [Order]
    public var clipped: Bool
    public var state: String
    public var spectrum: Bins?
    public var envelopeSpectrum: Bins?
    /// Envelope spectra in the average the families are read from, and the
    /// span they cover, s.
    public var averaged: Int = 1
    public var averageSpan: Double = 0
    public var bearing: Bearing?
    /// Times the windows started again after lost samples, since this
    /// analysis began.
    public var restarts: Int = 0

    public init(t: Double, seq: UInt64, duration: Double, rate: Double, x: Axis, y: Axis, z: Axis,
                rms: Double, peak: Double, crest: Double, velocity: Double, band: [Double], zone: String?,
                peaks: [[Double]], envelopeBand: [Double], envelopePeaks: [[Double]], shaft: Double?, orders: [Order],
                clipped: Bool, state: String, spectrum: Bins? = nil, envelopeSpectrum: Bins? = nil) {
        (self.t, self.seq, self.duration, self.rate, self.x, self.y, self.z) = (t, seq, duration, rate, x, y, z)
        (self.rms, self.peak, self.crest, self.velocity, self.band, self.zone) = (rms, peak, crest, velocity, band, zone)
        (self.peaks, self.envelopeBand, self.envelopePeaks, self.shaft, self.orders) = (peaks, envelopeBand, envelopePeaks, shaft, orders)
        (self.clipped, self.state, self.spectrum, self.envelopeSpectrum) = (clipped, state, spectrum, envelopeSpectrum)
    }
}

/// The machine's state changed (off, idle, running): the `machine` message.
public struct MachineMessage: Sendable, Equatable {
    /// When the window that confirmed it began, s.
    public var t: Double
    public var state: String
    public var from: String
    public init(t: Double, state: String, from: String) { (self.t, self.state, self.from) = (t, state, from) }
}
