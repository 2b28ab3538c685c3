// SPDX-License-Identifier: Apache-2.0
@testable import AccelConfiguration
import AccelMachine
@testable import AccelDaemon
import AccelCore
import AccelDriver
import AccelMotion
import Testing
import TestSupport

@Suite("Configuration file")
struct ConfigurationTests {
    @Test("the shipped Config/acceld.conf states exactly the built-in defaults")
    func shippedDefaults() throws {
        let shipped = try Configuration(contentsOf: repositoryRoot + "/Config/acceld.conf")
        #expect(shipped == Configuration())
        // And it mentions every key, so it documents them all.
        let text = try #require(readTextFile(repositoryRoot + "/Config/acceld.conf"))
        for key in Configuration.keys { #expect(text.contains("\n\(key.name) = "), "\(key.fullName) missing") }
    }

    @Test("values are applied, comments and blank lines ignored")
    func applied() throws {
        let c = try Configuration(parsing: """
            ; a comment
            [device]
            range = 8
            rate = 400
            address = 0x1d

            [shake]
            threshold = 1.5   # stronger
            [gravity]
            filter = exponential
            """)
        #expect(c.device.range == 8 && c.device.rate == 400 && c.device.address == 0x1D)
        #expect(c.motion.shake.threshold == 1.5)
        #expect(c.motion.gravity.filter == .exponential)
        #expect(c.motion.freeFall == FreeFallSettings(), "untouched sections keep their defaults")
    }

    @Test("[vibration]: a shaft fixed or estimated, a bearing by its factors or its geometry, bands as LOW-HIGH")
    func vibrationSection() throws {
        let c = try Configuration(parsing: """
            [vibration]
            machine-class = group2-rigid
            shaft = auto 10-60
            bearing = factors 3.585, 5.415, 2.357, 0.398
            envelope-band = 500-3000
            running-threshold = 0.2
            """)
        #expect(c.vibration.machineClass?.name == "group2-rigid")
        #expect(c.vibration.shaft == .estimated(10...60))
        #expect(c.vibration.bearing == BearingFactors(bpfo: 3.585, bpfi: 5.415, bsf: 2.357, ftf: 0.398))
        #expect(c.vibration.envelopeBand == 500...3000 && c.vibration.state.running == 0.2)
        // The 6205's geometry (9 balls of 7.94 mm on a 39.04 mm pitch): the
        // factors its datasheet gives, to three figures.
        let geometry = try Configuration(parsing: "[vibration]\nshaft = 29.95\nbearing = geometry 9 7.94 39.04 0\n")
        #expect(geometry.vibration.shaft == .fixed(29.95))
        let bearing = try #require(geometry.vibration.bearing)
        #expect(abs(bearing.bpfo - 3.585) < 0.001 && abs(bearing.bpfi - 5.415) < 0.001, "\(bearing)")
    }

    @Test("docs/VIBRATION.md's pump parses as it says: class I, the shaft estimated in 25 to 35 Hz, the 6205's orders")
    func vibrationExample() throws {
        let page = try #require(readTextFile(repositoryRoot + "/docs/VIBRATION.md"))
        let block = try #require(page.components(separatedBy: "```ini\n").dropFirst().first?.components(separatedBy: "```").first)
        let pump = try Configuration(parsing: block, source: "docs/VIBRATION.md")
        #expect(pump.vibration.machineClass?.name == "I" && pump.vibration.shaft == .estimated(25...35))
        #expect(abs((pump.vibration.bearing?.bpfi ?? 0) - 5.415) < 0.001 && pump.vibration.state.running == 0.1)
        try pump.vibration.validate(rate: 1660)
    }

    @Test("mistakes are errors naming the file, the line, the key and the reason", arguments: [
        ("[shake]\ntreshold = 1\n", 2, "unknown key 'treshold' in [shake]; did you mean 'threshold'?"),
        ("[shake]\nthreshold = strong\n", 2, "[shake] threshold: 'strong' is not a number (g)"),
        ("[shake]\nthreshold = -1\n", 2, "[shake] threshold: -1 is out of range"),
        ("[device]\nrange = 3\n", 2, "[device] range: '3' is not one of auto, 2, 4, 6, 8, 12, 16, 24, 100, 200, 400"),
        ("[device]\npart = LIS302DL\nrange = 4\n", 3, "[device] range: ±4 g is not available on the LIS302DL: choose one of 2, 8"),
        ("[device]\npart = LIS3DH\nmode = low-power\nrate = 1344\n", 4, "[device] rate: 1344 Hz is not available on the LIS3DH in low-power mode: choose one of 1, 10, 25, 50, 100, 200, 400, 1620, 5376"),
        ("[device]\npart = LIS331HH\nmode = high-resolution\n", 3, "[device] mode: 'high-resolution' is not a mode of the LIS331HH: choose one of normal"),
        ("[device]\npart = LIS3DHX\n", 2, "[device] part: 'LIS3DHX' is not one of auto, H3LIS331DL, LIS2DH12, LIS302DL, LIS331DL, LIS331DLH"),
        ("[device]\naddress = 0x3a0\n", 2, "is not a 7-bit hex address"),
        ("[device]\nmount-matrix = 1, 0, 0\n", 2, "found 1 rows"),
        ("[device]\ninterrupt = gpiochip0:\n", 2, "give the GPIO line as CHIP:LINE (gpiochip0:17, or gpiochip0:GPIO17)"),
        ("[device]\ninterrupt = 17\n", 2, "give the GPIO line as CHIP:LINE"),
        ("[device]\ninterrupt-pin = int3\n", 2, "[device] interrupt-pin: 'int3' is not a pin of the chip: use int1 or int2"),
        ("[device]\ninterrupt-fallback = poll\n", 2, "'poll' is not a fallback: use timer or none"),
        ("[device]\npart = LIS3DH\ninterrupt = GPIO17\ninterrupt-pin = int2\n", 4, "the LIS3DH cannot put data-ready on its INT2 pin: wire INT1 to the GPIO line and set interrupt-pin = int1"),
        ("[vibration]\nmachine-class = V\n", 2, "'V' is not a machine class: use none, I, II, III, IV, group1-rigid"),
        ("[vibration]\nshaft = fast\n", 2, "'fast' is not a shaft frequency: write HZ (29.95), auto LOW-HIGH (auto 10-60) or none"),
        ("[vibration]\nshaft = auto 60-10\n", 2, "'60-10' is not auto's range: write LOW-HIGH in Hz"),
        ("[vibration]\nbearing = geometry 2 7.94 39.04\n", 2, "ELEMENTS is a whole number of at least 3"),
        ("[vibration]\nbearing = factors 3.585 5.415\n", 2, "is not a bearing: write factors BPFO BPFI BSF FTF"),
        ("[vibration]\nvelocity-band = 10\n", 2, "'10' is not a band: write LOW-HIGH in Hz"),
        ("[gravity]\nfilter = kalman\n", 2, "'kalman' is not a filter: choose classic, exponential, adaptive"),
        ("[shaek]\n", 1, "unknown section [shaek]; did you mean 'shake'?"),
        ("threshold = 1\n", 1, "comes before any [section]"),
        ("[shake]\nthreshold = 1\nthreshold = 2\n", 3, "set twice (first on line 2)"),
        ("[shake]\nthreshold\n", 2, "expected 'key = value'"),
        ("[shake]\nthreshold =\n", 2, "has no value"),
    ])
    func mistakes(text: String, line: Int, message: String) {
        let error = #expect(throws: ConfigurationError.self) { try Configuration(parsing: text, source: "test.conf") }
        #expect(error?.line == line)
        #expect(error?.description.hasPrefix("test.conf:\(line): ") == true)
        #expect(error?.description.contains(message) == true, "\(error?.description ?? "")")
    }
}

@Suite("Configuration reference")
struct ConfigurationDocumentTests {
    @Test("docs/CONFIG.md documents every key under its section, with the default the code uses")
    func everyKeyDocumented() throws {
        let text = try String(contentsOfFile: repositoryRoot + "/docs/CONFIG.md", encoding: .utf8)
        let defaults = Configuration()
        for key in Configuration.keys {
            let section = try #require(text.components(separatedBy: "### [\(key.section)]").dropFirst().first,
                                       "no ### [\(key.section)] section")
            let table = section.components(separatedBy: "\n### ").first!
            let documented = "| \(key.name) | \(key.get(defaults).isEmpty ? "\"\"" : key.get(defaults)) |"
            #expect(table.contains("| \(key.name) |"), "\(key.fullName) is not documented")
            if !table.contains(documented) {
                // Numbers may be written as "20" for 20.0.
                let value = key.get(defaults).replacingOccurrences(of: ".0", with: "")
                #expect(table.contains("| \(key.name) | \(value)"), "\(key.fullName): documented default differs from \(key.get(defaults))")
            }
        }
    }
}
