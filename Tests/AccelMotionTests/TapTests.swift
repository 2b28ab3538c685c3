// SPDX-License-Identifier: Apache-2.0
import AccelCore
import AccelMotion
import Testing

#if canImport(Glibc)
import Glibc
#endif

@Suite("Tap")
struct TapTests {
    static let rates = [100.0, 400.0]

    /// A finger's knock on a board lying face up: a 20 ms half-sine of
    /// `peak` g pressing it down, then a little ringing.
    func knock(at t0: Double, peak: Double = 1.5) -> (Double) -> Vector3 {
        { t in
            let local = t - t0
            if (0..<0.02).contains(local) { return Vector3(0, 0, -peak * sin(.pi * local / 0.02)) }
            if (0.02..<0.08).contains(local) { return Vector3(0, 0, 0.1 * sin(2 * .pi * local / 0.03)) }
            return .zero
        }
    }

    @Test("two knocks 0.2 s apart on a still board are one double tap, once the board has settled", arguments: rates)
    func doubleTap(rate: Double) throws {
        let first = knock(at: 1), second = knock(at: 1.2)
        let taps = events(of: samples(rate: rate, seconds: 3) { t in flat + first(t) + second(t) }).compactMap(\.tap)
        try #require(taps.count == 1, "\(taps)")
        #expect(taps[0].count == 2)
        #expect(abs(taps[0].start - 1) <= 1.5 / rate)
        #expect(taps[0].direction.description == "-z")
        #expect(taps[0].peak > 1.2 && taps[0].peak <= 1.5)
        #expect(taps[0].t > 1.22 && taps[0].t < 1.5, "reported 0.2 s after the second knock, at \(taps[0].t)")
    }

    @Test("one knock is a single tap, reported when no second one has come", arguments: rates)
    func singleTap(rate: Double) throws {
        let first = knock(at: 1)
        let taps = events(of: samples(rate: rate, seconds: 3) { t in flat + first(t) }).compactMap(\.tap)
        try #require(taps.count == 1, "\(taps)")
        #expect(taps[0].count == 1)
        #expect(abs(taps[0].t - 1.4) < 0.02)
    }

    @Test("a knock on a board that was moving (a step, say) is no tap")
    func notWhileMoving() {
        let first = knock(at: 1.5)
        let input = samples(rate: 100, seconds: 3) { t in
            flat + Vector3(0.3 * sin(2 * .pi * 2 * t), 0, 0) + first(t)
        }
        #expect(events(of: input).compactMap(\.tap).isEmpty)
    }

    @Test("a 0.15 s push is no tap, however hard")
    func notAPush() {
        let input = samples(rate: 100, seconds: 3) { t in
            (1..<1.15).contains(t) ? flat + Vector3(0, 0, -2 * sin(.pi * (t - 1) / 0.15)) : flat
        }
        #expect(events(of: input).compactMap(\.tap).isEmpty)
    }

    @Test("two knocks and then the board is picked up: no double tap")
    func notBeforeAMovement() {
        let first = knock(at: 1), second = knock(at: 1.2)
        let input = samples(rate: 100, seconds: 3) { t in
            flat + first(t) + second(t) + ((1.32..<1.8).contains(t) ? Vector3(0, 0, 0.5) : .zero)
        }
        #expect(events(of: input).compactMap(\.tap).isEmpty)
    }

    @Test("the landing of a drop is no tap")
    func notALanding() {
        let input = samples(rate: 100, seconds: 3) { t in
            switch t {
            case 1..<1.4: .zero
            case 1.4..<1.42: Vector3(0, 0, 2.3)
            default: flat
            }
        }
        #expect(events(of: input).compactMap(\.tap).isEmpty)
    }
}
