// SPDX-License-Identifier: Apache-2.0
import Testing
@testable import AccelVibration

@Suite("Vibration settings")
struct SettingsTests {
    @Test("the defaults are valid at every rate of the FIFO parts", arguments: [1_344.0, 1_660, 3_330, 5_376, 6_660])
    func defaults(rate: Double) throws {
        try VibrationSettings().validate(rate: rate)
    }

    @Test("each bad setting is refused with the limit it broke")
    func refused() {
        var short = VibrationSettings()
        short.window = 0.2
        #expect(throws: VibrationSettingsError.windowTooShort(window: 0.2, lowest: 10, needed: 0.3)) { try short.validate(rate: 1_344) }
        #expect("\(VibrationSettingsError.windowTooShort(window: 0.2, lowest: 10, needed: 0.3))".contains("at least 0.3 s"))

        var high = VibrationSettings()
        high.envelopeBand = 500...3_000
        #expect(throws: VibrationSettingsError.bandAboveNyquist(name: "envelope band", band: 500...3_000, nyquist: 672)) {
            try high.validate(rate: 1_344)
        }

        var orders = VibrationSettings()
        orders.bearing = BearingFactors(bpfo: 3.05, bpfi: 4.95, bsf: 2, ftf: 0.38)
        #expect(throws: VibrationSettingsError.ordersWithoutShaft) { try orders.validate(rate: 1_344) }
        #expect("\(VibrationSettingsError.ordersWithoutShaft)".contains("shaft = HZ"))

        var overlap = VibrationSettings()
        overlap.overlap = 1
        #expect(throws: VibrationSettingsError.overlap(1)) { try overlap.validate(rate: 1_344) }
    }

    @Test("the velocity band is cut at the Nyquist frequency, and the report says so")
    func cutBand() {
        #expect(VibrationSettings().velocityBand(rate: 1_344) == 10...672)
        #expect(VibrationSettings().velocityBand(rate: 6_660) == 10...1_000)
    }
}
