// SPDX-License-Identifier: Apache-2.0
import Testing

@testable import AccelROS2

/// The monotonic clock mapped to the system clock: slewed, never stepped
/// for small changes, stepped for a clock that was set.
struct ClockMappingTests {
    @Test func smallChangesAreSlewedAt500ppm() {
        var clock = ClockMapping(offset: 1_000_000_000, atMonotonic: 0)
        clock.follow(measured: 1_000_100_000, at: 100_000_000)  // 100 µs more, 0.1 s later
        #expect(clock.offset == 1_000_050_000)  // 500 ppm of 0.1 s: 50 µs
        clock.follow(measured: 1_000_100_000, at: 1_100_000_000)
        #expect(clock.offset == 1_000_100_000)
    }

    @Test func aClockThatWasSetSteps() {
        var clock = ClockMapping(offset: 0, atMonotonic: 0)
        clock.follow(measured: 3_600_000_000_000, at: 1_000_000)
        #expect(clock.offset == 3_600_000_000_000)
    }

    @Test func anEarlierMeasurementMovesNothing() {
        var clock = ClockMapping(offset: 0, atMonotonic: 5_000_000_000)
        clock.follow(measured: 1_000, at: 4_000_000_000)
        #expect(clock.offset == 0)
    }

    @Test func stampsAreTheInstantPlusTheOffset() {
        let clock = ClockMapping(offset: 1_795_000_000_000_000_000, atMonotonic: 0)
        #expect(clock.unixNanoseconds(ofMonotonic: 12.000_001_5) == 1_795_000_012_000_001_500)
    }

    @Test func measuredOffsetMatchesTheClocks() {
        let measured = ClockMapping.measure()
        let mapping = ClockMapping()
        // Two measurements microseconds apart agree within what NTP could slew meanwhile.
        #expect(abs(mapping.offset - measured.offset) < 1_000_000)
    }
}
