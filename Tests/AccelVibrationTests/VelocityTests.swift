// SPDX-License-Identifier: Apache-2.0
import Foundation
import Testing
@testable import AccelVibration

/// The acceleration amplitude (g) of a sine whose velocity RMS is `mmps` at `hz`.
func amplitude(velocity mmps: Double, at hz: Double) -> Double {
    mmps * 2.0.squareRoot() * 2 * .pi * hz / 9_806.65
}

@Suite("Velocity severity")
struct VelocityTests {
    @Test("10 mm/s at 50 Hz reads 10 mm/s within 2 %")
    func singleSine() {
        let s = spectrum(of: signal([(50, amplitude(velocity: 10, at: 50))], rate: 3_330, count: 3_330, offset: 1), rate: 3_330)
        #expect(abs(VelocitySeverity.rms(s) / 10 - 1) < 0.02)
    }

    @Test("a mixture: 6 mm/s at 29.95 Hz and 8 mm/s at 148.3 Hz read as 10 mm/s within 2 %")
    func mixture() {
        let lines = [(29.95, amplitude(velocity: 6, at: 29.95)), (148.3, amplitude(velocity: 8, at: 148.3))]
        let s = spectrum(of: signal(lines, rate: 6_660, count: 6_660), rate: 6_660)
        #expect(abs(VelocitySeverity.rms(s) / 10 - 1) < 0.02)
    }

    @Test("lines outside 10 to 1,000 Hz do not count")
    func band() {
        let lines = [(4.0, amplitude(velocity: 30, at: 4)), (50, amplitude(velocity: 3, at: 50)), (1_500, amplitude(velocity: 20, at: 1_500))]
        let s = spectrum(of: signal(lines, rate: 6_660, count: 6_660), rate: 6_660)
        #expect(abs(VelocitySeverity.rms(s) / 3 - 1) < 0.03)
    }

    @Test("ISO zones: class II's boundaries are 1.12, 2.8 and 7.1 mm/s; a boundary is the worse zone")
    func zones() throws {
        let classII = try #require(MachineClass.named("ii"))
        #expect([0.5, 1.12, 2.0, 2.8, 5.0, 7.1, 20].map { classII.zone(velocity: $0) } == [.a, .b, .b, .c, .c, .d, .d])
        #expect(MachineClass.named("group2-rigid")?.zone(velocity: 3) == .c)
        #expect(MachineClass.named("V") == nil)
    }
}
