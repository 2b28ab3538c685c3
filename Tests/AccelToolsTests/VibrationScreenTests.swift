// SPDX-License-Identifier: Apache-2.0
import AccelCore
import AccelProtocol
@testable import AccelTools
import AccelVibration
import Testing

/// A window acceld wrote: `acceld --simulate machine --part LSM6DSO --rate
/// 1660 --range 16`, watched by `accelctl vibration --json --bins 128`
/// while the motor ran (29.95 Hz, its unbalance on x and y).
let machineWindowLine = #"{"class":"vibration","t":69547.022065,"seq":20136,"duration":0.9901,"rate":1676.654,"axes":{"x":{"rms":0.100934,"peak":0.417509,"peakToPeak":0.752008,"crest":4.136,"kurtosis":2.578,"velocity":4.5028,"dominant":[29.95,0.119100]},"y":{"rms":0.093766,"peak":0.214619,"peakToPeak":0.339160,"crest":2.289,"kurtosis":2.224,"velocity":4.5450,"dominant":[29.95,0.120645]},"z":{"rms":0.022647,"peak":0.126804,"peakToPeak":0.232288,"crest":5.599,"kurtosis":9.708,"velocity":0.2503,"dominant":[470.65,0.012897]}},"vector":{"rms":0.139616,"peak":0.444631,"crest":3.185,"velocity":6.4027},"band":[10.0,830.0],"peaks":[[29.95,0.169529],[59.90,0.068069],[470.69,0.027546],[578.05,0.027216],[89.83,0.026579]],"envelope":{"band":[124.5,747.0],"peaks":[[107.37,0.040984],[214.75,0.023801],[322.15,0.011914],[29.94,0.008444],[77.45,0.007143]]},"clipped":false,"state":"running","spectrum":{"step":6.5494,"amplitudes":[0.001689,0.001957,0.001543,0.002533,0.156975,0.004128,0.009378,0.001388,0.002570,0.064029,0.007821,0.001450,0.002957,0.026504,0.011983,0.001638,0.004149,0.001518,0.002246,0.001540,0.003633,0.001599,0.011332,0.001319,0.001357,0.001848,0.007280,0.002709,0.001576,0.002952,0.002190,0.001973,0.003451,0.001709,0.002304,0.001502,0.003836,0.001974,0.002556,0.013069,0.001359,0.001642,0.007690,0.004572,0.001460,0.003103,0.001378,0.001771,0.001494,0.004328,0.001901,0.001898,0.003861,0.004656,0.001894,0.019563,0.001356,0.001555,0.001288,0.006160,0.002529,0.002053,0.001606,0.001794,0.001701,0.004183,0.001486,0.003060,0.001689,0.005053,0.001053,0.027540,0.014152,0.001496,0.001805,0.005527,0.003930,0.001208,0.002390,0.001862,0.001590,0.003720,0.003555,0.003175,0.001024,0.006968,0.001811,0.001318,0.025622,0.001270,0.001821,0.002604,0.005146,0.002087,0.002539,0.001711,0.001679,0.001932,0.003488,0.001807,0.002844,0.001894,0.006408,0.001656,0.017619,0.001372,0.001530,0.001911,0.004339,0.001969,0.001281,0.001239,0.002520,0.003044,0.005244,0.001326,0.001796,0.001646,0.009639,0.001219,0.007203,0.013169,0.001734,0.001703,0.004288,0.001431,0.001249,0.001850]}}"#

func machineWindow() throws -> VibrationMessage {
    guard case .vibration(let window) = try Message(parsing: Array(machineWindowLine.utf8)) else {
        Issue.record("not a vibration message")
        throw MessageError("vibration", "not a vibration message")
    }
    return window
}

/// Each column's bar height in eighths of a row, from the drawn rows.
func barHeights(_ lines: [String]) -> [Int] {
    guard let title = lines.firstIndex(where: { $0.hasPrefix("spectrum ·") }),
          let axis = lines.firstIndex(where: { $0.contains("┬") }) else { return [] }
    let rows = lines[(title + 1)..<axis].map { Array($0.dropFirst(TerminalSpectrum.gutter)) }
    let eighths: [Character: Int] = ["▁": 1, "▂": 2, "▃": 3, "▄": 4, "▅": 5, "▆": 6, "▇": 7, "█": 8]
    return (0..<(rows.first?.count ?? 0)).map { column in rows.reduce(0) { $0 + (column < $1.count ? eighths[$1[column]] ?? 0 : 0) } }
}

@Suite("accelctl vibration's screen")
struct VibrationScreenTests {
    @Test("the dominant line's bar is the tallest and stands at its frequency's column", arguments: [
        (80, 24, AmplitudeScale.log), (80, 24, .linear), (132, 40, .log), (50, 16, .linear),
    ])
    func dominantBar(width: Int, height: Int, scale: AmplitudeScale) throws {
        let window = try machineWindow()
        let lines = VibrationScreen.render(window, context: VibrationScreenContext(scale: scale), width: width, height: height)
        let heights = barHeights(lines)
        #expect(heights.count == width - TerminalSpectrum.gutter)
        let tallest = heights.indices.max { heights[$0] < heights[$1] }!
        let spectrum = try #require(window.spectrum)
        let span = Double(spectrum.amplitudes.count) * spectrum.step
        let dominant = window.peaks[0][0]
        let expected = dominant / span * Double(heights.count)
        #expect(abs(Double(tallest) + 0.5 - expected) <= 1.5, "the tallest bar at column \(tallest), \(dominant) Hz is at \(expected): \(lines.joined(separator: "\n"))")
        // The one tallest: no other column reaches its height.
        #expect(heights.filter { $0 == heights[tallest] }.count == 1, "\(heights)")
    }

    @Test("the frequency axis's labels stand under their frequencies")
    func axisLabels() throws {
        let window = try machineWindow()
        let lines = VibrationScreen.render(window, width: 100, height: 30)
        let labels = try #require(lines.last(where: { $0.hasPrefix("Hz") })).dropFirst(TerminalSpectrum.gutter)
        let spectrum = try #require(window.spectrum)
        let span = Double(spectrum.amplitudes.count) * spectrum.step, plotWidth = 100 - TerminalSpectrum.gutter
        var found: [(column: Int, hertz: Double)] = []
        var column = 0
        for word in labels.split(separator: " ", omittingEmptySubsequences: false) {
            if let hertz = Double(word) { found.append((column, hertz)) }
            column += word.count + 1
        }
        #expect(found.count >= 4, "\(labels)")
        #expect(found.first?.hertz == 0)
        for (column, hertz) in found {
            #expect(abs(Double(column) - hertz / span * Double(plotWidth)) <= 1, "\(hertz) Hz labelled at column \(column)")
        }
    }

    @Test("shows the figures a user checks: per axis and vector, velocity with the zone and its class, the lines, the state")
    func figures() throws {
        let window = try machineWindow()
        let lines = VibrationScreen.render(window, context: VibrationScreenContext(machineClass: .named("I")), width: 80, height: 24)
        let text = lines.joined(separator: "\n")
        let x = try #require(lines.first { $0.hasPrefix("x ") })
        #expect(x.contains(String(format: "%.5f", window.x.rms)) && x.contains(String(format: "%.2f", window.x.kurtosis)))
        let vector = try #require(lines.first { $0.hasPrefix("vector") })
        #expect(vector.contains(String(format: "%.2f", window.velocity)))
        // Class I: B from 0.71 mm/s, C from 1.8, D from 4.5 (ISO 10816-1, Annex B).
        let zone = window.velocity >= 4.5 ? "D" : window.velocity >= 1.8 ? "C" : window.velocity >= 0.71 ? "B" : "A"
        #expect(vector.contains("zone \(zone) (class I)"), "\(vector)")
        #expect(text.contains("peaks  " + String(format: "%.2f Hz", window.peaks[0][0])))
        #expect(text.contains("machine \(window.state) · window at"))
        let change = MachineMessage(t: window.t - 1.5, state: window.state, from: "off")
        let changed = VibrationScreen.render(window, context: VibrationScreenContext(lastChange: change))
        // Local time of day, as accelctl events shows its instants; never the monotonic clock's seconds.
        let local = WallClock.localTime(unixSeconds: WallClock.unixSeconds(ofMonotonic: change.t))
        #expect(changed.contains { $0.hasPrefix("machine \(window.state) since \(local.prefix(8))") && $0.contains(" (was off)") }, "\(changed)")
        #expect(!changed.contains { $0.contains(String(format: "%.2f s", change.t)) })
        #expect(VibrationScreen.change(change).range(of: #"^\w+ since \d\d:\d\d:\d\d\.\d{3} \(was off\)$"#, options: .regularExpression) != nil)
        #expect(!text.contains("CLIPPED"))
        let unjudged = VibrationScreen.render(window, width: 80, height: 24).joined(separator: "\n")
        #expect(unjudged.contains("zone: name a class"), "no class, no zone from a daemon that has none")
    }

    @Test("a clipped window says so on the screen and in the line")
    func clipped() throws {
        var window = try machineWindow()
        window.clipped = true
        #expect(VibrationScreen.render(window).contains(VibrationScreen.clippedWarning))
        #expect(VibrationScreen.summary(window).hasSuffix(" CLIPPED"))
    }

    @Test("the configured orders are shown when the message carries them, the envelope's lines otherwise")
    func orders() throws {
        var window = try machineWindow()
        #expect(VibrationScreen.render(window).contains { $0.hasPrefix("envelope ") })
        window.orders = [.init(name: "shaft", frequency: 29.95, amplitude: 0.0586, envelope: nil),
                         .init(name: "BPFO", frequency: 107.4, amplitude: nil, envelope: 0.0142)]
        let line = try #require(VibrationScreen.render(window).first { $0.hasPrefix("orders ") })
        #expect(line.contains("shaft 29.95 Hz 58.6 mg") && line.contains("BPFO 107.40 Hz no line (envelope 14.2 mg)"), "\(line)")
    }

    @Test("fits the terminal it is given, from 40 columns up", arguments: [(40, 12), (80, 24), (132, 50), (200, 60), (60, 8)])
    func fits(width: Int, height: Int) throws {
        let window = try machineWindow()
        for scale in AmplitudeScale.allCases {
            let lines = VibrationScreen.render(window, context: VibrationScreenContext(title: "LSM6DSO at chip model (machine) · 1.00 s windows", scale: scale),
                                               width: width, height: height)
            #expect(lines.count == height)
            #expect(lines.allSatisfy { $0.count <= width }, "\(lines.filter { $0.count > width })")
        }
        #expect(VibrationScreen.render(nil, width: width, height: height).count == height)
    }

    @Test("a narrow terminal keeps a line that falls in one bin of many: each column shows its largest bin")
    func narrowKeepsLines() {
        var amplitudes = [Double](repeating: 0.001, count: 1000)
        amplitudes[777] = 0.5
        let columns = TerminalSpectrum.columns(VibrationMessage.Bins(step: 1, amplitudes: amplitudes), count: 71)
        #expect(columns.count == 71)
        #expect(columns.max() == 0.5 && columns.firstIndex(of: 0.5) == Int(777.5 / 1000 * 71))
    }

    @Test("piped, a window is one line with the figures and the dominant line")
    func summaryLine() throws {
        let window = try machineWindow()
        let line = VibrationScreen.summary(window, machineClass: .named("II"))
        #expect(!line.contains("\n"))
        #expect(line.contains("velocity \(String(format: "%.2f", window.velocity)) mm/s zone "))
        #expect(line.contains("dominant \(String(format: "%.2f", window.peaks[0][0])) Hz"))
        #expect(line.range(of: #"^\d\d:\d\d:\d\d\.\d{3} "#, options: .regularExpression) != nil && line.contains(" \(window.state) rms "), "\(line)")
    }

    @Test("a configured bearing: the worst order's condition in capitals, each order's indicator, the average they come from; the summary line names it")
    func bearingCondition() throws {
        var window = try machineWindow()
        window.orders = [
            .init(name: "shaft", frequency: 29.95, amplitude: 0.17, envelope: nil, indicator: 9.2),
            .init(name: "bpfo", frequency: 107.4, amplitude: nil, envelope: 0.04, indicator: 24.3, condition: "alarm"),
            .init(name: "bpfi", frequency: 162.2, amplitude: nil, envelope: nil, indicator: 1.2, condition: "ok"),
        ]
        window.bearing = .init(condition: "alarm", order: "bpfo", indicator: 24.3)
        (window.averaged, window.averageSpan) = (19, 10)
        let lines = VibrationScreen.render(window, width: 132, height: 40)
        let line = try #require(lines.first { $0.hasPrefix("bearing") })
        #expect(line.hasPrefix("bearing ALARM (bpfo) · bpfo 24.3 dB alarm · bpfi 1.2 dB ok"), "\(line)")
        #expect(line.contains("19 envelopes, 10.0 s") && !line.contains("shaft"), "\(line)")
        #expect(VibrationScreen.summary(window).contains("bearing alarm bpfo 24.3 dB"))
    }
}
