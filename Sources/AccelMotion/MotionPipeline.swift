// SPDX-License-Identifier: Apache-2.0
import AccelCore

/// The pure pipeline: calibrated samples in, frames and events out. No file
/// descriptors and no clock of its own, so the same code runs live, in
/// replay and in tests, and every result is reproducible.
public struct MotionPipeline: Sendable {
    public private(set) var settings: MotionSettings
    private var gravityFilter: GravityFilter
    /// The detectors' steadier gravity (see `GravitySettings.baseline`).
    private var baselineFilter: GravityFilter
    private var orientationDetector: OrientationDetector
    private var shakeDetector: ShakeDetector
    private var freeFallDetector: FreeFallDetector
    private var movementDetector: MovementDetector
    private var tapDetector: TapDetector
    /// Made at the first sample with a rotation rate: parts without a
    /// gyroscope keep the accelerometer's gravity filter alone.
    private var fusion: AttitudeFusion?
    /// The gyroscope's full scale (rad/s: a rate there is saturated), known
    /// once the part is.
    public var gyroscopeRange: Double { didSet { fusion?.range = gyroscopeRange } }
    /// Where the fusion's offset estimate starts (rad/s, board axes): the
    /// calibration's offset at rest. Read when the first rate arrives;
    /// later the estimate learned at rest is the better one.
    public var gyroscopeBias = Vector3.zero

    public init(settings: MotionSettings = MotionSettings(), gyroscopeRange: Double = .infinity) {
        self.settings = settings
        self.gyroscopeRange = gyroscopeRange
        gravityFilter = GravityFilter(settings: settings.gravity)
        baselineFilter = GravityFilter(settings: settings.gravity.baseline)
        orientationDetector = OrientationDetector(settings: settings.orientation)
        shakeDetector = ShakeDetector(settings: settings.shake)
        freeFallDetector = FreeFallDetector(settings: settings.freeFall)
        movementDetector = MovementDetector(settings: settings.movement)
        tapDetector = TapDetector(settings: settings.tap)
    }

    /// The orientation decided so far (`unknown` until one has settled).
    public var orientation: DeviceOrientation { orientationDetector.current }

    /// New tunables without losing state (SIGHUP): filters and detectors
    /// keep their history and use the new constants from the next sample.
    public mutating func update(_ settings: MotionSettings) {
        self.settings = settings
        gravityFilter.settings = settings.gravity
        baselineFilter.settings = settings.gravity.baseline
        orientationDetector.settings = settings.orientation
        shakeDetector.settings = settings.shake
        freeFallDetector.settings = settings.freeFall
        movementDetector.settings = settings.movement
        tapDetector.settings = settings.tap
        fusion?.settings = settings.fusion
    }

    /// Processes one sample; appends any events it completes to `events`.
    public mutating func process(_ sample: Sample, events: inout [MotionEvent]) -> Frame {
        let t = sample.t
        let a = sample.g
        let magnitude = a.magnitude
        let filtered = gravityFilter.process(a, t: t)
        var fused: AttitudeFusion.Output?
        if let rate = sample.rotationRate {
            if fusion == nil { fusion = AttitudeFusion(settings: settings.fusion, range: gyroscopeRange, bias: gyroscopeBias) }
            fused = fusion?.process(acceleration: a, rate: rate, t: t)
        }
        let gravity = fused?.gravity ?? filtered
        // What the detectors call user acceleration: against the baseline.
        let user = a - baselineFilter.process(a, t: t)

        if let change = orientationDetector.process(gravity: gravity, magnitude: magnitude, sample: a, t: t) {
            events.append(.orientation(change))
        }
        if let fall = freeFallDetector.process(magnitude: magnitude, t: t) {
            events.append(.freeFall(fall))
            // Shaking that ends in a free fall was the wind-up of a throw:
            // it is over now.
            if case .confirmed = fall, let end = shakeDetector.interrupt(t: t) { events.append(.shake(end)) }
        }
        // While falling and landing, |user| is about 1 g and the impact
        // reverses it: that is a drop, not a shake, so the shake detector
        // sees calm instead.
        let shakeInput = freeFallDetector.isConfirmed || freeFallDetector.isSettling ? Vector3.zero : user
        if let shake = shakeDetector.process(user: shakeInput, t: t) {
            events.append(.shake(shake))
        }
        // A movement that overlaps a shake or a fall was not a deliberate push.
        if shakeDetector.isShaking || freeFallDetector.isFalling { movementDetector.voided = true }
        if let movement = movementDetector.process(user: user, t: t) {
            events.append(.movement(movement))
        }
        // Falling, landing and shaking have impacts enough, and none is a tap.
        if freeFallDetector.isFalling || freeFallDetector.isSettling || shakeDetector.isShaking {
            tapDetector.suppress(t: t)
        } else if let tap = tapDetector.process(user: user, t: t) {
            events.append(.tap(tap))
        }
        let attitude = fused.map { Attitude(quaternion: $0.attitude) } ?? Attitude(gravity: gravity)
        return Frame(seq: sample.seq, t: t, acceleration: a, gravity: gravity, user: a - gravity, attitude: attitude,
                     rotationRate: fused?.rotationRate, quaternion: fused?.attitude,
                     gyroscopeRecovering: fused?.isRecovering ?? false)
    }
}
