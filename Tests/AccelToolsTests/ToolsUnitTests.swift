// SPDX-License-Identifier: Apache-2.0
import AccelConfiguration
import AccelCore
import AccelDriver
import AccelMotion
import AccelParts
import AccelProtocol
@testable import AccelTools
import Foundation
#if canImport(FoundationXML)
import FoundationXML
#endif
import Testing
import TestSupport

@Suite("Register decoding for dump")
struct RegisterMapTests {
    func line(_ profile: ChipProfile, _ name: String, _ values: [UInt8: UInt8]) -> String {
        RegisterMap.lines(profile, values: values).first { $0.contains(" \(name) ") }!
    }

    @Test("the LIS302DL's CTRL_REG1 0x47 and 0xE7 read as the datasheet says")
    func lis302dlControl() {
        #expect(line(.lis302dl, "CTRL_REG1", [0x20: 0x47]).hasSuffix("0x47  DR=0 PD=1 FS=0 STP=0 STM=0 Zen=1 Yen=1 Xen=1 · 100 Hz, ±2 g"))
        #expect(line(.lis302dl, "CTRL_REG1", [0x20: 0xE7]).contains("· 400 Hz, ±8 g"))
        #expect(line(.lis302dl, "CTRL_REG1", [0x20: 0x07]).contains("· powered down"))
        #expect(line(.lis302dl, "CTRL_REG1", [0x20: 0x57]).contains("self-test actuator on"))
    }

    @Test("outputs are two's complement at the part's resolution, shown in digits and g")
    func outputs() {
        #expect(line(.lis302dl, "OUT_X", [0x20: 0x47, 0x29: 0x80]).contains("X = -128 digits = -2.304 g at ±2 g"))
        #expect(line(.lis302dl, "OUT_Z", [0x20: 0x67, 0x2D: 0x38]).contains("Z = 56 digits = 4.032 g at ±8 g"))
        // LIS3DH, high-resolution ±2 g: -1000 mg is 0xC180 left-justified.
        let lis3dh: [UInt8: UInt8] = [0x20: 0x57, 0x23: 0x88, 0x2C: 0x80, 0x2D: 0xC1]
        #expect(line(.lis3dh, "OUT_Z_H", lis3dh).contains("Z = -1000 digits = -1.000 g at ±2 g"))
        #expect(line(.lis3dh, "CTRL_REG1", lis3dh).contains("· 100 Hz, high-resolution mode (12-bit)"))
        #expect(line(.lis3dh, "CTRL_REG4", lis3dh).contains("BDU=1 BLE=0 FS=0 HR=1 ST=0 SIM=0 · ±2 g"))
    }

    @Test("STATUS, the high-pass warning, WHO_AM_I with every part that answers it")
    func others() {
        #expect(line(.lis302dl, "STATUS_REG", [0x27: 0x88]).hasSuffix("ZYXOR=1 ZOR=0 YOR=0 XOR=0 ZYXDA=1 ZDA=0 YDA=0 XDA=0"))
        #expect(line(.lis302dl, "CTRL_REG2", [0x21: 0x10]).contains("outputs high-passed"))
        #expect(line(.lis3dh, "WHO_AM_I", [0x0F: 0x33]).contains("LIS3DH or LIS2DH12"))
        #expect(line(.lis331hh, "CTRL_REG4", [0x20: 0x27, 0x23: 0x90]).contains("±12 g"))
    }

    @Test("every part: each register once, in address order, and side-effect registers not read")
    func coverage() {
        for profile in ChipProfile.supported {
            let addresses = profile.registers.map(\.address)
            #expect(Set(addresses).count == addresses.count, "\(profile.name)")
            let lines = RegisterMap.lines(profile, values: [:])
            #expect(lines.count == addresses.count)
            #expect(!RegisterMap.readable(profile).contains { address in profile.register(at: address)?.access == .readClears })
        }
    }
}

@Suite("Six-position calibration")
struct CalibrationProcedureTests {
    /// Runs the procedure on a chip model with the given flaws, turning
    /// through the tour on a virtual clock.
    func calibrate(offset: Vector3, gain: Vector3, flat: Bool = false, matrix: MountMatrix = .identity,
                   motion: any MotionSource = MotionScript.tour()) throws -> (Calibration, SixPositionCalibration) {
        let time = VirtualTime()
        var flaws = ChipModel.Imperfections()
        flaws.offset = offset
        flaws.sensitivityError = gain - Vector3(1, 1, 1)
        flaws.noise = 0.009
        let model = ChipModel(motion: motion, time: time, imperfections: flaws)
        let driver = try Accelerometer(bus: model, time: time)
        try driver.configure(DeviceConfiguration())
        var procedure = SixPositionCalibration(mountMatrix: matrix, flat: flat)
        while !procedure.isDone && time.seconds < 60 {
            let reading = try driver.nextReading()
            _ = procedure.add(chip: driver.chipAcceleration(reading.counts), t: time.seconds)
        }
        #expect(procedure.isDone)
        return (procedure.result().calibration, procedure)
    }

    @Test("recovers injected offsets within 5 mg and scales within 1 %")
    func sixPositions() throws {
        let offset = Vector3(0.036, -0.022, 0.041), gain = Vector3(1.03, 0.97, 1.015)
        let (calibration, procedure) = try calibrate(offset: offset, gain: gain)
        for axis in Axis.allCases {
            #expect(abs(calibration.offset[axis] - offset[axis]) < 0.005, "\(axis) offset \(calibration.offset[axis])")
            let truth = 1 / gain[axis]
            #expect(abs(calibration.scale[axis] - truth) / truth < 0.01, "\(axis) scale \(calibration.scale[axis])")
        }
        #expect(procedure.result().residuals.allSatisfy { $0.1 < 10 }, "residuals under 10 mg")
    }

    @Test("works through a mount matrix: faces are the board's, corrections the chip's")
    func mounted() throws {
        let matrix = try MountMatrix(parsing: "0, 1, 0; -1, 0, 0; 0, 0, 1")
        // The tour moves the board; the chip sees it rotated: feed the chip Mᵀ·f.
        final class Rotated: MotionSource {
            let inner = MotionScript.tour()
            let name = "rotated tour"
            var duration: Double { inner.duration }
            func specificForce(at t: Double) -> Vector3 {
                let f = inner.specificForce(at: t)
                return Vector3(-f.y, f.x, f.z)  // Mᵀ·f for the matrix above
            }
        }
        let offset = Vector3(0.03, 0.0, -0.02), gain = Vector3(1.02, 1.0, 1.0)
        let (calibration, _) = try calibrate(offset: offset, gain: gain, matrix: matrix, motion: Rotated())
        #expect(abs(calibration.offset.x - 0.03) < 0.005 && abs(calibration.offset.z + 0.02) < 0.005)
        #expect(abs(calibration.scale.x - 1 / 1.02) < 0.01)
    }

    @Test("the flat calibration measures offsets from the +Z face alone")
    func flat() throws {
        let (calibration, procedure) = try calibrate(offset: Vector3(0.03, -0.04, 0.02), gain: Vector3(1, 1, 1), flat: true,
                                                     motion: MotionScript.rest())
        #expect(procedure.measurements.count == 1)
        #expect(abs(calibration.offset.x - 0.03) < 0.005 && abs(calibration.offset.y + 0.04) < 0.005 && abs(calibration.offset.z - 0.02) < 0.005)
        #expect(calibration.scale == Vector3(1, 1, 1))
    }

    @Test("a board that keeps moving is never measured")
    func moving() {
        var procedure = SixPositionCalibration()
        let shake = MotionScript(name: "shaking", segments: [.shake(base: Vector3(0, 0, 1), axis: Vector3(1, 0, 0), amplitude: 0.3, hertz: 3, seconds: 10)])
        for i in 0..<1000 { _ = procedure.add(chip: shake.specificForce(at: Double(i) / 100), t: Double(i) / 100) }
        #expect(procedure.measurements.isEmpty)
    }
}

@Suite("Probe")
struct ProbeTests {
    @Test("an empty bus gives a clear 'nothing answered', naming the addresses and the SDO strap")
    func emptyBus() {
        let findings = Probe.scan(buses: ["/dev/i2c-9"]) { bus, address in throw BusError.noAnswer(path: bus, address: address) }
        #expect(findings.isEmpty)
        let verdict = Probe.verdict(findings, buses: ["/dev/i2c-9"]) { _, _ in "" }
        #expect(verdict.exitCode == 68)
        #expect(verdict.text.contains("nothing answered at 0x18, 0x19, 0x1c, 0x1d, 0x6a, 0x6b on /dev/i2c-9"))
        #expect(verdict.text.contains("SDO strap"))
    }

    final class FakeChip: RegisterBus {
        let whoAmI: UInt8
        init(_ whoAmI: UInt8) { self.whoAmI = whoAmI }
        var location: String { "fake" }
        var maximumReadLength: Int { 32 }
        func readRegister(_ subAddress: UInt8) throws -> UInt8 { whoAmI }
        func writeRegister(_ subAddress: UInt8, _ value: UInt8) throws {}
        func readBlock(from subAddress: UInt8, into buffer: UnsafeMutableRawBufferPointer) throws {}
    }

    @Test("a relative this build does not drive is named, and not taken for a supported part")
    func relative() {
        let findings = Probe.scan(buses: ["/dev/i2c-1"]) { bus, address in
            guard address == 0x18 else { throw BusError.noAnswer(path: bus, address: address) }
            return FakeChip(0x44)
        }
        #expect(findings.count == 1 && findings[0].part == nil && findings[0].note?.contains("LIS2DW12") == true)
        #expect(Probe.verdict(findings, buses: ["/dev/i2c-1"]) { _, _ in "" }.exitCode == 65, "docs/ERRORS.md: a WHO_AM_I acceld does not drive")
    }

    @Test("a shared WHO_AM_I names every candidate and asks for --part; two chips on one bus are both found")
    func sharedWhoAmI() {
        let findings = Probe.scan(buses: ["/dev/i2c-1"]) { bus, address in
            switch address {
            case 0x18: return FakeChip(0x33)
            case 0x1C: return FakeChip(0x3B)
            default: throw BusError.noAnswer(path: bus, address: address)
            }
        }
        #expect(findings.map(\.part) == ["LIS3DH or LIS2DH12", "LIS302DL/LIS331DL"])
        #expect(findings[0].note?.contains("--part") == true)
        let verdict = Probe.verdict(findings, buses: ["/dev/i2c-1"]) { _, address in "accelctl selftest --address \(hex(address))" }
        #expect(verdict.exitCode == 0)
        #expect(verdict.text.contains("LIS3DH or LIS2DH12 at 0x18 on /dev/i2c-1: run accelctl selftest --address 0x18 --part LIS3DH|LIS2DH12"))
        #expect(verdict.text.contains("LIS302DL/LIS331DL at 0x1c"))
    }

    @Test("a part named with --part that shares the WHO_AM_I found is the answer, with nothing more to name")
    func namedPart() {
        let findings = Probe.scan(buses: ["/dev/i2c-1"], named: .named("LIS3DH")) { bus, address in
            guard address == 0x18 else { throw BusError.noAnswer(path: bus, address: address) }
            return FakeChip(0x33)
        }
        #expect(findings.map(\.part) == ["LIS3DH"] && findings[0].note == nil)
    }

    @Test("no bus at all, or a missing one, is 69 (docs/ERRORS.md), with the chip model as the way on; a denied one 77")
    func missingBus() {
        let none = Probe.verdict([], buses: []) { _, _ in "" }
        #expect(none.exitCode == 69 && none.text.contains("accelctl probe --simulate"), "\(none.text)")
        for (error, code) in [(BusError.noSuchBus(path: "/dev/i2c-3"), Int32(69)), (.permissionDenied(path: "/dev/i2c-3"), 77)] {
            let findings = Probe.scan(buses: ["/dev/i2c-3"]) { _, _ in throw error }
            #expect(findings.count == 1, "one line for the bus, not one per address")
            #expect(Probe.verdict(findings, buses: ["/dev/i2c-3"]) { _, _ in "" }.exitCode == code)
        }
    }
}

@Suite("SVG plot")
struct SVGPlotTests {
    final class PolylineReader: NSObject, XMLParserDelegate {
        var polylines: [String: [(Double, Double)]] = [:]
        var texts = 0
        func parser(_ parser: XMLParser, didStartElement name: String, namespaceURI: String?, qualifiedName: String?, attributes: [String: String] = [:]) {
            if name == "polyline", let series = attributes["data-name"], let points = attributes["points"] {
                polylines[series] = points.split(separator: " ").map { pair in
                    let xy = pair.split(separator: ",").map { Double($0)! }
                    return (xy[0], xy[1])
                }
            }
            if name == "text" { texts += 1 }
        }
    }

    @Test("the SVG parses as XML, and each trace's drawn extremes are the recording's")
    func extremes() throws {
        let trace = try Trace(contentsOf: sharedData + "/freefall/fall_1.csv")
        let plot = SVGPlot()
        let svg = plot.render(title: "fall", times: trace.times, series: [
            .init(name: "x", color: "red", values: trace.samples.map(\.x)),
            .init(name: "y", color: "green", values: trace.samples.map(\.y)),
            .init(name: "z", color: "blue", values: trace.samples.map(\.z)),
        ], markers: [.init(t: 4, label: "fall")])
        let reader = PolylineReader()
        let parser = XMLParser(data: Data(svg.utf8))
        parser.delegate = reader
        #expect(parser.parse(), "valid XML")
        #expect(reader.polylines.count == 3)
        // Invert the y mapping from the plot's own scale: min and max of all series.
        let all = trace.samples.flatMap { [$0.x, $0.y, $0.z] }
        let top = reader.polylines.values.flatMap { $0.map(\.1) }.min()!
        let bottom = reader.polylines.values.flatMap { $0.map(\.1) }.max()!
        for (name, values) in [("x", trace.samples.map(\.x)), ("y", trace.samples.map(\.y)), ("z", trace.samples.map(\.z))] {
            let ys = reader.polylines[name]!.map(\.1)
            func value(_ y: Double) -> Double { all.max()! - (y - top) / (bottom - top) * (all.max()! - all.min()!) }
            let span = all.max()! - all.min()!
            #expect(abs(value(ys.min()!) - values.max()!) < span * 0.005, "\(name) max")
            #expect(abs(value(ys.max()!) - values.min()!) < span * 0.005, "\(name) min")
        }
    }
}

extension SVGPlotTests {
    @Test("events are shaded over their spans, and no two labels overlap however crowded")
    func spansAndLabels() throws {
        let times = (0...1000).map { Double($0) / 100 }
        var markers: [SVGPlot.Marker] = [.init(t: 2, end: 4.5, label: "shake 2.5 s", kind: .shake)]
        // 60 events in 3 s: far more than fit side by side.
        for i in 0..<60 { markers.append(.init(t: 5 + Double(i) * 0.05, end: 5.1 + Double(i) * 0.05, label: "double tap", kind: .tap)) }
        markers.append(.init(t: 9, label: "faceUp"))
        let svg = SVGPlot().render(title: "crowd", times: times, series: [.init(name: "x", color: "red", values: times.map(sin))], markers: markers)
        final class Reader: NSObject, XMLParserDelegate {
            var spans: [[String: String]] = []
            var labels: [(x: Double, y: Double, text: String)] = []
            var current: (Double, Double)?
            func parser(_ parser: XMLParser, didStartElement name: String, namespaceURI: String?, qualifiedName: String?, attributes: [String: String] = [:]) {
                if attributes["class"] == "event-span" { spans.append(attributes) }
                current = attributes["class"] == "event-label" ? (Double(attributes["x"]!)!, Double(attributes["y"]!)!) : nil
            }
            func parser(_ parser: XMLParser, foundCharacters string: String) {
                if let (x, y) = current { labels.append((x, y, string)) }
            }
            func parser(_ parser: XMLParser, didEndElement name: String, namespaceURI: String?, qualifiedName: String?) {
                current = nil
            }
        }
        let reader = Reader()
        let parser = XMLParser(data: Data(svg.utf8))
        parser.delegate = reader
        #expect(parser.parse())
        #expect(reader.spans.count == 61)
        let shake = try #require(reader.spans.first { $0["data-kind"] == "shake" })
        // 60 px of margin, 880 px for 10 s: the shake spans 2 s to 4.5 s.
        #expect(abs(Double(shake["x"]!)! - (60 + 176)) < 1 && abs(Double(shake["width"]!)! - 220) < 1)
        #expect(svg.contains("<line class=\"event\" data-kind=\"orientation\""))
        // Labels: boxes as wide as the plot reckons (an upper bound), none overlapping.
        var overlaps = 0
        for (i, a) in reader.labels.enumerated() {
            for b in reader.labels[(i + 1)...] where a.y == b.y {
                if a.x < b.x + SVGPlot.LabelBox.width(of: b.text) && b.x < a.x + SVGPlot.LabelBox.width(of: a.text) { overlaps += 1 }
            }
        }
        #expect(overlaps == 0)
        #expect(reader.labels.count > 20, "crowded labels stack in lanes")
        #expect(reader.labels.contains { $0.text == "faceUp" } || svg.contains("more event labels not shown"))
        let shown = reader.labels.count
        #expect(shown == 62 || svg.contains("\(62 - shown) more event labels not shown"), "what is left out is said")
    }
}

@Suite("Watch screen")
struct WatchScreenTests {
    @Test("fits 80x24 and shows the axes with bars, gravity, attitude, orientation and events")
    func layout() {
        var state = WatchState()
        state.title = "LIS302DL at chip model · ±2 g · 100 Hz"
        state.acceleration = Vector3(0.5, -1.0, 1.008)
        state.orientation = "faceUp"
        state.events = (1...30).map { "event \($0)" }
        let lines = WatchScreen.render(state)
        #expect(lines.count == 24)
        #expect(lines.allSatisfy { $0.count <= 80 })
        #expect(lines.contains { $0.hasPrefix("x   +0.500 g  [") })
        #expect(lines.contains { $0.contains("orientation faceUp") })
        #expect(lines.last == "  event 30", "the newest events, as many as fit")
        // +1.008 g on ±2 g fills about half of the right-hand side.
        let zBar = lines.first { $0.hasPrefix("z") }!
        let right = zBar.split(separator: "|")[1]
        #expect(abs(right.filter { $0 == "#" }.count - (right.count - 1) / 2) <= 1)
        #expect(!lines.contains { $0.contains("yaw") || $0.contains("rotation") }, "a 3-axis part: nothing of a gyroscope")
    }

    @Test("a six-axis part's view adds the rotation rate in °/s and yaw in °, still on 80x24")
    func sixAxis() {
        var state = WatchState()
        state.rotationRate = Vector3(12.34, -0.5, 90)
        state.yaw = -45.25
        let lines = WatchScreen.render(state)
        #expect(lines.count == 24 && lines.allSatisfy { $0.count <= 80 })
        #expect(lines.contains("rotation   x +12.3  y  -0.5  z +90.0 °/s"), "\(lines)")
        #expect(lines.contains { $0.contains("roll  +0.0°   yaw -45.") }, "\(lines)")
    }

    @Test("events shows a six-axis frame's yaw and rotation rate in degrees, and a 3-axis frame without them")
    func frameText() {
        var frame = FrameMessage(seq: 7, t: 1, acceleration: Vector3(0, 0, 1), pitch: 1, roll: 2)
        #expect(!describe(.frame(frame), clock: .sinceStart(0)).contains("yaw"))
        frame.yaw = 12.5
        frame.rotationRate = Vector3(0, 0, .pi / 2)
        let text = describe(.frame(frame), clock: .sinceStart(0))
        #expect(text.hasSuffix("pitch 1.0° roll 2.0° yaw 12.5° rotation x 0.0 y 0.0 z 90.0 °/s"), "\(text)")
    }
}

@Suite("The rate meter")
struct RateMeterTests {
    @Test("samples a late poll missed still count: a 388 Hz chip seen with a fifth of its samples overwritten reads 388 Hz")
    func missedSamples() {
        let period = 1e9 / 388
        // Every fifth sample overwritten, and three runs of four (a busy machine).
        let seen = (0..<2000).filter { $0 % 5 != 3 && !(500..<504).contains($0) && !(900..<904).contains($0) && !(1500..<1504).contains($0) }
        let observations = zip(seen, [-1] + seen).map { index, previous in
            RateMeter.Observation(instant: UInt64(Double(index) * period + 30_000), overrun: index - previous > 1)
        }
        #expect(abs(RateMeter.rate(of: observations) - 388) < 0.5)
        #expect(RateMeter.rate(of: Array(observations.prefix(2))) == 0, "too few to say")
        let report = { (overruns: Int) in RateReport(nominal: 400, measured: 388, samples: 400, overruns: overruns, noise: .zero, burstMicroseconds: 50) }
        #expect(report(20).isReliable && !report(21).isReliable, "reliable while at most one read in 20 overran")
    }

    @Test("polls late by up to 0.8 of a period, none missing a sample: a 400 Hz chip reads 400 Hz, not more")
    func jitteredPolls() {
        var random = SeededRandom(seed: 7)
        let period = 1e9 / 400
        let observations = (0..<400).map { index in
            RateMeter.Observation(instant: UInt64(Double(index) * period + Double.random(in: 0..<0.8, using: &random) * period), overrun: false)
        }
        #expect(abs(RateMeter.rate(of: observations) - 400) < 400 * 0.002)
    }

    @Test("a poller on a busy machine (a read in 30 came late, by 1 to 3 periods) reads a 412 Hz chip within 0.5 %", arguments: [1, 2, 3] as [UInt64])
    func latePolls(seed: UInt64) {
        var random = SeededRandom(seed: seed)
        let period = 1e9 / 412
        var observations: [RateMeter.Observation] = [], newest = -1, clock = 0.0
        while clock < 2e9 {
            // Polls every 0.1 period plus a stamp delay; now and then one comes late.
            clock += Double.random(in: 0..<1, using: &random) < 0.005 ? Double.random(in: 1..<3, using: &random) * period : 0.1 * period
            let sample = Int(clock / period)
            if sample > newest {
                let stamp = clock + Double.random(in: 0..<0.05, using: &random) * period
                observations.append(.init(instant: UInt64(stamp), overrun: newest >= 0 && sample - newest > 1))
                newest = sample
            }
        }
        #expect(observations.filter(\.overrun).count > 15)
        #expect(abs(RateMeter.rate(of: observations) - 412) < 412 * 0.005, "\(RateMeter.rate(of: observations))")
    }
}

@Suite("Finding the INT wiring")
struct InterruptWiringTests {
    @Test("each pin's edges against the chip's rate: a pin wired to the line, one wired nowhere")
    func findsThePin() throws {
        let time = VirtualTime()
        let model = ChipModel(profile: .lsm6dso, motion: MotionScript.rest(), time: time)
        let driver = try Accelerometer(bus: model, time: time, part: .lsm6dso)
        let line = SimulatedInterruptLine(model: model, pin: .int2, time: time)
        let findings = try InterruptWiring.find(driver: driver, line: line, configuration: driver.defaultConfiguration(), time: time)
        #expect(findings.map(\.pin) == [.int1, .int2])
        #expect(findings[0].edges == 0 && findings[0].verdict(line: "L").hasPrefix("INT1 is wired nowhere"))
        #expect(abs(findings[1].edgesPerSecond - 104) < 5 && findings[1].verdict(line: "L").contains("as it should; set interrupt-pin = int2"))
        #expect(model.peek(0x0D) == 0 && model.peek(0x0E) == 0, "no pin left routed")
    }

    @Test("edges at twice the chip's rate, or too few, are said with the figures")
    func wrongRates() {
        let doubled = InterruptWiring.Finding(pin: .int1, edges: 200, seconds: 1, rate: 100)
        #expect(doubled.verdict(line: "L").contains("200.0 edges/s against the chip's 100 Hz: more than the chip makes"))
        let missing = InterruptWiring.Finding(pin: .int1, edges: 40, seconds: 1, rate: 100)
        #expect(missing.verdict(line: "L").contains("edges go missing"))
    }

    /// The model's line, read by a probe on a starved host: after every
    /// other wait it is held up for `late` ns before it reads the chip.
    final class LateReader: InterruptLine {
        let line: InterruptLine, time: VirtualTime, late: UInt64
        var waits = 0
        init(_ line: InterruptLine, time: VirtualTime, late: UInt64) { (self.line, self.time, self.late) = (line, time, late) }
        var description: String { line.description }
        func wait(nanoseconds: UInt64) throws -> [Edge] {
            let edges = try line.wait(nanoseconds: nanoseconds)
            waits += 1
            if waits % 2 == 0 && !edges.isEmpty { time.sleep(nanoseconds: late) }
            return edges
        }
        func wake() { line.wake() }
        func level() throws -> Bool { try line.level() }
    }

    @Test("a probe that read late says so, and blames neither the wiring nor the pull-up; a line that loses edges still is blamed")
    func lateProbe() throws {
        let time = VirtualTime()
        let model = ChipModel(profile: .lis302dl, motion: MotionScript.rest(), time: time)
        let driver = try Accelerometer(bus: model, time: time, part: .lis302dl)
        let configuration = driver.defaultConfiguration()
        let period = UInt64(1e9 / Double(configuration.rate))
        let line = LateReader(SimulatedInterruptLine(model: model, pin: .int1, time: time), time: time, late: period * 5 / 2)
        let int1 = try #require(try InterruptWiring.find(driver: driver, line: line, configuration: configuration, time: time).first)
        #expect(int1.edgesPerSecond < 0.85 * Double(configuration.rate), "the starved probe saw few edges: \(int1)")
        let verdict = int1.verdict(line: "L")
        #expect(verdict.contains("this probe read late") && !verdict.contains("weak pull"), "\(verdict)")
        let wiring = InterruptWiring.Finding(pin: .int1, edges: 40, seconds: 1, rate: 100, missedByProbe: 5)
        #expect(wiring.verdict(line: "L").contains("edges go missing"), "what the probe's lateness does not explain is the line's")
    }

    @Test("the rate is the edges' own, from their stamps: a window stretched by a late wake-up does not lower it")
    func rateFromStamps() {
        let late = InterruptWiring.Finding(pin: .int1, edges: 51, seconds: 0.62, rate: 100, span: 0.5)
        #expect(late.verdict(line: "L").contains("100.0 edges/s against the chip's 100 Hz, as it should"))
    }
}
