// SPDX-License-Identifier: Apache-2.0
import AccelCore
import Testing
@testable import AccelMotion

#if canImport(Glibc)
import Glibc
#endif

@Suite("Orientation")
struct OrientationTests {
    /// Settles on faceUp, then holds gravity at `degrees` toward +Y.
    func finalOrientation(after degrees: Double, settings: OrientationSettings = OrientationSettings()) -> DeviceOrientation {
        var detector = OrientationDetector(settings: settings)
        var t = 0.0
        for _ in 0..<100 { _ = detector.process(gravity: flat, magnitude: 1, t: t); t += 0.01 }
        #expect(detector.current == .faceUp)
        for _ in 0..<200 { _ = detector.process(gravity: tilted(degrees), magnitude: 1, t: t); t += 0.01 }
        return detector.current
    }

    @Test("the dead zone holds at its boundary ±1°: 45° + 10° with the default 20° zone")
    func deadZone() {
        #expect(finalOrientation(after: 54) == .faceUp)
        #expect(finalOrientation(after: 56) == .portrait)
        #expect(finalOrientation(after: 46) == .faceUp, "past the geometric boundary, inside the dead zone")
    }

    @Test("the dead zone is a tunable")
    func deadZoneTunable() {
        var settings = OrientationSettings()
        #expect(finalOrientation(after: 51) == .faceUp)
        settings.deadZoneDegrees = 0
        #expect(finalOrientation(after: 51, settings: settings) == .portrait, "39° from portrait, inside the tilt limit")
    }

    @Test("the settle time is respected: no event before it, one at it")
    func settle() {
        var detector = OrientationDetector()
        var changes: [OrientationDetector.Change] = []
        for i in 0...29 {
            if let c = detector.process(gravity: flat, magnitude: 1, t: Double(i) * 0.01) { changes.append(c) }
        }
        #expect(changes.isEmpty, "0.29 s < 0.3 s settle time")
        if let c = detector.process(gravity: flat, magnitude: 1, t: 0.30) { changes.append(c) }
        #expect(changes == [OrientationDetector.Change(t: 0.30, orientation: .faceUp, previous: .unknown)])
    }

    @Test("a flicker shorter than the settle time does not change the state")
    func flicker() {
        var detector = OrientationDetector()
        var t = 0.0
        for _ in 0..<50 { _ = detector.process(gravity: flat, magnitude: 1, t: t); t += 0.01 }
        for _ in 0..<20 { _ = detector.process(gravity: Vector3(0, 1, 0), magnitude: 1, t: t); t += 0.01 }
        for _ in 0..<50 { _ = detector.process(gravity: flat, magnitude: 1, t: t); t += 0.01 }
        #expect(detector.current == .faceUp)
    }

    @Test("no decision beyond the tilt limit, nor while |a| is far from 1 g")
    func gates() {
        var corner = OrientationDetector()
        var accelerated = OrientationDetector()
        for i in 0..<200 {
            let t = Double(i) * 0.01
            _ = corner.process(gravity: Vector3(1, 1, 1), magnitude: 1, t: t)
            _ = accelerated.process(gravity: flat, magnitude: 1.4, t: t)
        }
        #expect(corner.current == .unknown)
        #expect(accelerated.current == .unknown)
    }

    @Test("each face is recognised from its own 'up'", arguments: DeviceOrientation.faces)
    func faces(face: DeviceOrientation) {
        let e = events(of: samples(rate: 100, seconds: 1) { _ in face.up! })
        #expect(e.compactMap(\.orientationChange).map(\.orientation) == [face])
    }
}

@Suite("Shake")
struct ShakeTests {
    static let rates = [100.0, 400.0]

    func shaking(rate: Double) -> [Sample] {
        samples(rate: rate, seconds: 4) { t in
            (1...2.5).contains(t) ? flat + Vector3(2 * sin(2 * .pi * 5 * (t - 1)), 0, 0) : flat
        }
    }

    @Test("a 1.5 s shake starts once within 0.5 s, then ends once with its duration and peak", arguments: rates)
    func oneShake(rate: Double) throws {
        let all = events(of: shaking(rate: rate))
        let starts = all.compactMap(\.shakeStarted)
        let shakes = all.compactMap(\.shake)
        try #require(starts.count == 1 && shakes.count == 1)
        #expect(starts[0].t - 1 <= 0.5, "the start message came \(starts[0].t - 1) s after the shaking began")
        #expect(starts[0].start == shakes[0].start)
        #expect(abs(shakes[0].start - 1.05) < 0.1, "\(shakes[0])")
        #expect(abs(shakes[0].duration - 1.4) < 0.15, "\(shakes[0])")
        #expect(shakes[0].peak > 1.8 && shakes[0].peak < 2.3)
        #expect(shakes[0].t > 2.5, "the end comes after the shaking stops")
    }

    @Test("the same shake gives the same event at 100 and 400 Hz (within a sample or two)")
    func rateIndependent() throws {
        let a = try #require(events(of: shaking(rate: 100)).compactMap(\.shake).first)
        let b = try #require(events(of: shaking(rate: 400)).compactMap(\.shake).first)
        #expect(abs(a.start - b.start) < 0.02 && abs(a.duration - b.duration) < 0.03)
    }

    @Test("a whip (one 2 g stroke out and back) is not a shake", arguments: rates)
    func whip(rate: Double) {
        let input = samples(rate: rate, seconds: 3) { t in
            (1..<1.4).contains(t) ? flat + Vector3(2.2 * sin(2 * .pi * (t - 1) / 0.4), 0, 0) : flat
        }
        #expect(events(of: input).compactMap(\.shakeStarted).isEmpty)
    }

    @Test("a swing that turns through 180° in small steps still counts as a reversal at 400 Hz as at 100 Hz")
    func reversalsAtEveryRate() throws {
        // A circular stroke: x swings +2 → −2 g while y carries the magnitude
        // through the turn, so no two consecutive samples point apart.
        func circling(rate: Double) -> [Sample] {
            samples(rate: rate, seconds: 4) { t in
                guard (1...2.5).contains(t) else { return flat }
                let phase = 2 * .pi * 4 * (t - 1)
                return flat + Vector3(2 * cos(phase), 2 * sin(phase), 0)
            }
        }
        #expect(events(of: circling(rate: 100)).compactMap(\.shakeStarted).count == 1)
        #expect(events(of: circling(rate: 400)).compactMap(\.shakeStarted).count == 1)
    }

    @Test("a single 5 g spike is not a shake", arguments: rates)
    func spike(rate: Double) {
        let input = samples(rate: rate, seconds: 3) { t in (1.5..<1.52).contains(t) ? Vector3(0, 0, 5) : flat }
        #expect(events(of: input).compactMap(\.shake).isEmpty)
    }

    @Test("two shakes closer than the minimum interval count as one")
    func minimumInterval() {
        let input = samples(rate: 100, seconds: 5) { t in
            // A 0.8 s pause: longer than the end time, shorter than 3 s.
            (1..<2).contains(t) || (2.8..<3.8).contains(t) ? flat + Vector3(2 * sin(2 * .pi * 5 * t), 0, 0) : flat
        }
        var settings = MotionSettings()
        settings.shake.minimumIntervalSeconds = 3
        #expect(events(of: input, settings: settings).compactMap(\.shake).count == 1)
        settings.shake.minimumIntervalSeconds = 0.2
        #expect(events(of: input, settings: settings).compactMap(\.shake).count == 2)
    }
}

@Suite("Free fall")
struct FreeFallTests {
    @Test("a 0.3 s zero-g stretch is warned of early, confirmed, then ends with its duration and height", arguments: [100.0, 400.0])
    func fall(rate: Double) throws {
        let input = samples(rate: rate, seconds: 3) { t in (1..<1.3).contains(t) ? .zero : flat }
        let falls = events(of: input).compactMap(\.fall)
        try #require(falls.count == 3)
        guard case .started(let t0, let start) = falls[0], case .confirmed(let t1, let start1) = falls[1],
              case .ended(_, let start2, let duration, let height) = falls[2] else {
            Issue.record("expected start, confirmed, end: \(falls)")
            return
        }
        #expect(abs(start - 1) < 1.5 / rate && start == start1 && start == start2)
        #expect(abs(t0 - 1.08) < 1.5 / rate, "warned once it lasted the minimum time")
        #expect(abs(t1 - 1.2) < 1.5 / rate, "confirmed once it lasted the confirmation time")
        #expect(abs(duration - 0.3) < 1.5 / rate)
        #expect(abs(height - 9.80665 * duration * duration / 2) < 1e-9)
    }

    @Test("a gesture's 0.15 s zero-g dip is warned of, then withdrawn, never confirmed", arguments: [100.0, 400.0])
    func withdrawn(rate: Double) throws {
        let input = samples(rate: rate, seconds: 3) { t in (1..<1.15).contains(t) ? .zero : flat }
        let falls = events(of: input).compactMap(\.fall)
        try #require(falls.count == 2, "\(falls)")
        guard case .started = falls[0], case .withdrawn(_, let start, let duration) = falls[1] else {
            Issue.record("expected start then withdrawn: \(falls)")
            return
        }
        #expect(abs(start - 1) < 1.5 / rate && abs(duration - 0.15) < 1.5 / rate)
    }

    @Test("|a| held at 0.35 g for half a second (a swing, not a fall) is never taken for free fall")
    func notFree() {
        let input = samples(rate: 100, seconds: 3) { t in (1..<1.5).contains(t) ? flat * 0.35 : flat }
        #expect(events(of: input).compactMap(\.fall).isEmpty)
    }

    @Test("a 20 ms dip is not a fall")
    func dip() {
        let input = samples(rate: 400, seconds: 2) { t in (1..<1.02).contains(t) ? .zero : flat }
        #expect(!events(of: input).contains { if case .freeFall = $0 { true } else { false } })
    }

    @Test("bounces right after a landing belong to the same drop")
    func bounces() {
        let input = samples(rate: 100, seconds: 4) { t in
            switch t {
            case 1..<1.5: .zero                        // the fall
            case 1.5..<1.52: Vector3(0, 0, 2.3)         // landing (clipped)
            case 1.6..<1.85: .zero                      // a 0.25 s bounce
            default: flat
            }
        }
        let starts = events(of: input).filter { if case .freeFall(.started) = $0 { true } else { false } }
        #expect(starts.count == 1)
    }
}

@Suite("Movement")
struct MovementTests {
    static let directions: [(Vector3, String)] = [
        (Vector3(1, 0, 0), "+x"), (Vector3(-1, 0, 0), "-x"), (Vector3(0, 1, 0), "+y"),
        (Vector3(0, -1, 0), "-y"), (Vector3(0, 0, 1), "+z"), (Vector3(0, 0, -1), "-z"),
    ]

    @Test("a push and its braking give one movement in the push's direction", arguments: directions)
    func direction(axis: Vector3, name: String) throws {
        // 0.2 s of +0.6 g (half-sine), 0.2 s of braking, then still.
        let input = samples(rate: 100, seconds: 3) { t in
            let local = t - 1
            guard (0..<0.4).contains(local) else { return flat }
            return flat + axis * (0.6 * sin(2 * .pi * local / 0.4))
        }
        let moves = events(of: input).compactMap(\.movement)
        try #require(moves.count == 1)
        #expect(moves[0].direction.description == name)
        #expect(abs(moves[0].duration - 0.4) < 0.1)
        #expect(moves[0].peak > 0.5)
    }

    @Test("a shake is not reported as movements")
    func notDuringShake() {
        let input = samples(rate: 100, seconds: 4) { t in
            (1...2.5).contains(t) ? flat + Vector3(2 * sin(2 * .pi * 5 * (t - 1)), 0, 0) : flat
        }
        #expect(events(of: input).compactMap(\.movement).isEmpty)
    }
}
