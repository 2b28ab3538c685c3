// SPDX-License-Identifier: Apache-2.0
import AccelCore
import AccelParts
/// Where samples come from: the real chip on an I2C bus, or the chip model
/// fed by a built-in script or a recorded trace. acceld never picks the
/// model by itself: simulation is always asked for by name.
public enum DeviceSource: Sendable, Equatable, CustomStringConvertible {
    case i2c(bus: Int, address: UInt8, force: Bool, allowByteReads: Bool)
    /// A built-in `MotionScript` name or a trace file path, and how to
    /// play a trace that is not a six-axis part's.
    case simulated(motion: String, playback: TracePlayback = TracePlayback())
    /// The kernel's driver, through IIO: `iio:deviceN` or the driver's
    /// name for the chip; nil for the only IIO accelerometer there is.
    case iio(device: String?)

    public var description: String {
        switch self {
        case .i2c(let bus, let address, _, _): "/dev/i2c-\(bus) at \(hex(address))"
        case .simulated(let motion, _): "chip model (\(motion))"
        case .iio(let device): "IIO device \(device ?? "(the only accelerometer)")"
        }
    }

    public struct MotionError: Error, CustomStringConvertible {
        public let name: String
        public var description: String {
            "'\(name)' is neither a built-in motion (\(builtInMotions.joined(separator: ", "))) nor a readable trace file"
        }
    }

    /// The built-in motions: MotionScript's, and a machine's vibration.
    public static let builtInMotions = MotionScript.names + ["machine"]

    /// The motion a simulation runs: a built-in script by name, else a
    /// trace file (a one-axis trace on `axis`).
    public static func motion(named name: String, axis: Axis? = nil) throws -> any MotionSource {
        if let script = MotionScript.named(name) { return script }
        if name == "machine" { return VibrationMotion.machine() }
        guard readTextFile(name) != nil else { throw MotionError(name: name) }
        return TraceMotion(try Trace(contentsOf: name, axis: axis), name: name)
    }

    /// What a person should hear when `motion` carries rotation rates that
    /// `part` cannot play: the trace's accelerometer columns still play;
    /// its `wx,wy,wz` are ignored (docs/TRACE-FORMAT.md).
    public static func ignoredRotation(_ motion: any MotionSource, part: ChipProfile) -> String? {
        guard part.gyroscope == nil, let trace = motion as? TraceMotion, trace.trace.rotationRates != nil else { return nil }
        return "\(trace.name) has rotation rates (wx,wy,wz); the \(part.name) has no gyroscope, so they are ignored"
    }

    /// The motion `part` plays: refuses a trace without rotation rates on
    /// a part with a gyroscope, whose zero rates would pass for a board
    /// held still, unless it was (docs/TRACE-FORMAT.md).
    public static func motion(named name: String, playedBy part: ChipProfile, playback: TracePlayback = TracePlayback()) throws -> any MotionSource {
        try still(motion(named: name, axis: playback.axis), playedBy: part, playback: playback)
    }

    /// `motion` as `part` plays it: a trace without rotation rates gets a
    /// still gyroscope's where the part has one and the trace is one
    /// axis's (a board lying still) or `playback` says the board was still;
    /// any other is refused.
    public static func still(_ motion: any MotionSource, playedBy part: ChipProfile, playback: TracePlayback) throws -> any MotionSource {
        guard part.gyroscope != nil, let played = motion as? TraceMotion, played.trace.rotationRates == nil else { return motion }
        guard playback.stillGyroscope || played.trace.oneAxis != nil else {
            throw DriverError.traceWithoutRotation(trace: played.name, part: part.name)
        }
        var trace = played.trace
        trace.rotationRates = trace.samples.map { _ in .zero }
        return TraceMotion(trace, name: played.name)
    }

    /// What to tell a person whose trace plays with a still gyroscope, or nil.
    public static func stillNotice(_ motion: any MotionSource, part: ChipProfile, playback: TracePlayback) -> String? {
        guard part.gyroscope != nil, let played = motion as? TraceMotion, played.trace.rotationRates == nil else { return nil }
        let why = played.trace.oneAxis.map { "it is one axis (\($0.rawValue)) of a board lying flat" } ?? "--still-gyroscope says the board was still"
        return "\(played.name) has no rotation rates: the \(part.name)'s gyroscope reads a board that does not turn, as \(why)"
    }

    /// Opens the bus (or builds the model of `part`, the LIS302DL unless
    /// named) on `time`.
    public func openBus(time: TimeSource, part: ChipProfile? = nil, imperfections: ChipModel.Imperfections = .init()) throws -> RegisterBus {
        switch self {
        case .i2c(let bus, let address, let force, let allowByteReads):
            return try I2CBus(bus: bus, address: address, force: force, allowByteReads: allowByteReads)
        case .simulated(let name, let playback):
            return ChipModel(profile: part ?? .lis302dl, motion: try DeviceSource.motion(named: name, playedBy: part ?? .lis302dl, playback: playback), time: time,
                             imperfections: imperfections, location: "chip model (\(name))")
        case .iio(let device):
            throw IIOError.registersUnavailable(device: device ?? "the IIO device")
        }
    }

    /// Opens the bus and identifies the chip: `part` when named, else by
    /// WHO_AM_I (refused where several parts share it).
    public func openDriver(time: TimeSource, part: ChipProfile? = nil, imperfections: ChipModel.Imperfections = .init()) throws -> Accelerometer {
        try Accelerometer(bus: try openBus(time: time, part: part, imperfections: imperfections), time: time, part: part)
    }
}
