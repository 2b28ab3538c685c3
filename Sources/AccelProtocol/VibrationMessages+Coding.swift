// SPDX-License-Identifier: Apache-2.0
import AccelCore

// The vibration messages on the wire (docs/PROTOCOL.md, docs/protocol.schema.json).

extension VibrationMessage {
    /// [Hz, g] pairs: frequencies to the hundredth, amplitudes to the µg.
    static func lines(_ pairs: [[Double]]) -> String { "[" + pairs.map(pair).joined(separator: ",") + "]" }

    static func pair(_ line: [Double]) -> String { "[\(fixed(line[0], 2)),\(fixed(line[1], 6))]" }

    static func numbers(_ values: [Double], decimals: Int) -> String {
        "[" + values.map { fixed($0, decimals) }.joined(separator: ",") + "]"
    }

    func encode(_ line: inout JSONLine) {
        line.add("t", t, decimals: 6)
        line.add("seq", seq)
        line.add("duration", duration, decimals: 4)
        line.add("rate", rate, decimals: 3)
        var axes = JSONLine()
        axes.addRaw("x", x.json)
        axes.addRaw("y", y.json)
        axes.addRaw("z", z.json)
        line.addRaw("axes", String(decoding: axes.finished(), as: UTF8.self))
        var vector = JSONLine()
        vector.add("rms", rms, decimals: 6)
        vector.add("peak", peak, decimals: 6)
        vector.add("crest", crest, decimals: 3)
        vector.add("velocity", velocity, decimals: 4)
        line.addRaw("vector", String(decoding: vector.finished(), as: UTF8.self))
        line.addRaw("band", Self.numbers(band, decimals: 1))
        if let zone { line.add("zone", zone) }
        line.addRaw("peaks", Self.lines(peaks))
        var envelope = JSONLine()
        envelope.addRaw("band", Self.numbers(envelopeBand, decimals: 1))
        envelope.addRaw("peaks", Self.lines(envelopePeaks))
        line.addRaw("envelope", String(decoding: envelope.finished(), as: UTF8.self))
        if let shaft { line.add("shaft", shaft, decimals: 3) }
        if !orders.isEmpty { line.addRaw("orders", "[" + orders.map(\.json).joined(separator: ",") + "]") }
        var average = JSONLine()
        average.add("windows", averaged)
        average.add("span", averageSpan, decimals: 3)
        line.addRaw("average", String(decoding: average.finished(), as: UTF8.self))
        if let bearing { line.addRaw("bearing", bearing.json) }
        line.add("restarts", restarts)
        line.add("clipped", clipped)
        line.add("state", state)
        if let spectrum { line.addRaw("spectrum", spectrum.json) }
        if let envelopeSpectrum { line.addRaw("envelopeSpectrum", envelopeSpectrum.json) }
    }

    init(_ f: MessageFields) throws(MessageError) {
        let axes = try f.nested("axes"), vector = try f.nested("vector"), envelope = try f.nested("envelope")
        self.init(
            t: try f.number("t"), seq: try f.uint64("seq"), duration: try f.number("duration"), rate: try f.number("rate"),
            x: try Axis(try axes.nested("x")), y: try Axis(try axes.nested("y")), z: try Axis(try axes.nested("z")),
            rms: try vector.number("rms"), peak: try vector.number("peak"), crest: try vector.number("crest"),
            velocity: try vector.number("velocity"),
            band: try f.required("band", "[low, high]") { $0.numbers(count: 2) },
            zone: try f.optionalString("zone"),
            peaks: try f.lines("peaks"),
            envelopeBand: try envelope.required("band", "[low, high]") { $0.numbers(count: 2) },
            envelopePeaks: try envelope.lines("peaks"),
            shaft: try f.optionalNumber("shaft"),
            orders: try f.optional("orders", "an array of orders", \.array).map { items throws(MessageError) in
                var orders: [Order] = []
                for item in items {
                    guard let object = item.object else { throw f.error("\"orders\" must hold objects") }
                    orders.append(try Order(MessageFields(object: object, className: f.className)))
                }
                return orders
            } ?? [],
            clipped: try f.bool("clipped"), state: try f.string("state"),
            spectrum: try f.optional("spectrum", "an object", \.object).map { object throws(MessageError) in
                try Bins(MessageFields(object: object, className: f.className))
            },
            envelopeSpectrum: try f.optional("envelopeSpectrum", "an object", \.object).map { object throws(MessageError) in
                try Bins(MessageFields(object: object, className: f.className))
            }
        )
        if let average = try f.optional("average", "an object", \.object) {
            let fields = MessageFields(object: average, className: f.className)
            averaged = Int(try fields.number("windows"))
            averageSpan = try fields.number("span")
        }
        bearing = try f.optional("bearing", "an object", \.object).map { object throws(MessageError) in
            try Bearing(MessageFields(object: object, className: f.className))
        }
        restarts = Int(try f.optionalNumber("restarts") ?? 0)
    }
}

extension VibrationMessage.Bearing {
    var json: String {
        var line = JSONLine()
        line.add("condition", condition)
        line.add("order", order)
        line.add("indicator", indicator, decimals: 1)
        return String(decoding: line.finished(), as: UTF8.self)
    }

    init(_ f: MessageFields) throws(MessageError) {
        self.init(condition: try f.string("condition"), order: try f.string("order"), indicator: try f.number("indicator"))
    }
}

extension VibrationMessage.Axis {
    var json: String {
        var line = JSONLine()
        line.add("rms", rms, decimals: 6)
        line.add("peak", peak, decimals: 6)
        line.add("peakToPeak", peakToPeak, decimals: 6)
        line.add("crest", crest, decimals: 3)
        line.add("kurtosis", kurtosis, decimals: 3)
        line.add("velocity", velocity, decimals: 4)
        if let dominant { line.addRaw("dominant", VibrationMessage.pair(dominant)) }
        return String(decoding: line.finished(), as: UTF8.self)
    }

    init(_ f: MessageFields) throws(MessageError) {
        self.init(rms: try f.number("rms"), peak: try f.number("peak"), peakToPeak: try f.number("peakToPeak"),
                  crest: try f.number("crest"), kurtosis: try f.number("kurtosis"), velocity: try f.number("velocity"),
                  dominant: try f.optionalNumbers("dominant", count: 2))
    }
}

extension VibrationMessage.Order {
    var json: String {
        var line = JSONLine()
        line.add("name", name)
        line.add("frequency", frequency, decimals: 3)
        if let amplitude { line.add("amplitude", amplitude, decimals: 6) }
        if let envelope { line.add("envelope", envelope, decimals: 6) }
        if !family.isEmpty { line.addRaw("family", Self.familyLines(family)) }
        if !sidebands.isEmpty { line.addRaw("sidebands", Self.familyLines(sidebands)) }
        if let indicator { line.add("indicator", indicator, decimals: 1) }
        if let condition { line.add("condition", condition) }
        return String(decoding: line.finished(), as: UTF8.self)
    }

    /// [Hz, g, dB] triples, null where no line stands.
    static func familyLines(_ lines: [[Double]?]) -> String {
        "[" + lines.map { line in
            line.map { "[\(fixed($0[0], 2)),\(fixed($0[1], 6)),\(fixed($0[2], 1))]" } ?? "null"
        }.joined(separator: ",") + "]"
    }

    init(_ f: MessageFields) throws(MessageError) {
        func lines(_ key: String) throws(MessageError) -> [[Double]?] {
            try f.optional(key, "an array of [Hz, g, dB] or null", \.array).map { items throws(MessageError) in
                var lines: [[Double]?] = []
                for item in items {
                    if case .null = item { lines.append(nil); continue }
                    guard let triple = item.numbers(count: 3) else { throw f.error("\"\(key)\" must hold [Hz, g, dB] triples or null") }
                    lines.append(triple)
                }
                return lines
            } ?? []
        }
        self.init(name: try f.string("name"), frequency: try f.number("frequency"),
                  amplitude: try f.optionalNumber("amplitude"), envelope: try f.optionalNumber("envelope"),
                  family: try lines("family"), sidebands: try lines("sidebands"),
                  indicator: try f.optionalNumber("indicator"), condition: try f.optionalString("condition"))
    }
}

extension VibrationMessage.Bins {
    var json: String {
        var line = JSONLine()
        line.add("step", step, decimals: 4)
        line.addRaw("amplitudes", VibrationMessage.numbers(amplitudes, decimals: 6))
        return String(decoding: line.finished(), as: UTF8.self)
    }

    init(_ f: MessageFields) throws(MessageError) {
        self.init(step: try f.number("step"), amplitudes: try f.required("amplitudes", "an array of numbers") { value in
            value.array.flatMap { items in
                let numbers = items.compactMap(\.number)
                return numbers.count == items.count ? numbers : nil
            }
        })
    }
}

extension MachineMessage {
    func encode(_ line: inout JSONLine) {
        line.add("t", t, decimals: 6)
        line.add("state", state)
        line.add("from", from)
    }

    init(_ f: MessageFields) throws(MessageError) {
        self.init(t: try f.number("t"), state: try f.string("state"), from: try f.string("from"))
    }
}

extension MessageFields {
    /// An array of [Hz, g] pairs.
    func lines(_ key: String) throws(MessageError) -> [[Double]] {
        try required(key, "an array of [Hz, g] pairs") { value in
            value.array.flatMap { items in
                let pairs = items.compactMap { $0.numbers(count: 2) }
                return pairs.count == items.count ? pairs : nil
            }
        }
    }
}
