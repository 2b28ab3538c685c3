// SPDX-License-Identifier: Apache-2.0
import AccelCore
import AccelMotion
import AccelProtocol

/// One line a person can read for a daemon message (accelctl events,
/// watch), its instant shown by `clock`: a live daemon's in local time.
public func describe(_ message: Message, clock: EventClock = .wallClock) -> String {
    switch message {
    case .event(let event): return describe(event, clock: clock)
    case .hello(let h): return "acceld \(h.version) serves \(deviceText(h.device))"
    case .device(let d): return "device \(d.event ?? d.state): \(d.message ?? deviceText(d))"
    case .frame(let f):
        let acc = f.acceleration.map { "x \(fixed($0.x, 3)) y \(fixed($0.y, 3)) z \(fixed($0.z, 3)) g" } ?? ""
        let attitude = f.pitch.map { " pitch \(fixed($0, 1))° roll \(fixed(f.roll ?? 0, 1))°" } ?? ""
        // A six-axis part's: yaw, and the rate in °/s (the wire's rad/s).
        let yaw = f.yaw.map { " yaw \(fixed($0, 1))°" } ?? ""
        let rate = f.rotationRate.map { r in
            " rotation x \(fixed(r.x * 180 / .pi, 1)) y \(fixed(r.y * 180 / .pi, 1)) z \(fixed(r.z * 180 / .pi, 1)) °/s"
        } ?? ""
        return "\(clock.text(f.t)) #\(f.seq) \(acc)\(attitude)\(yaw)\(rate)"
    case .dropped(let count, _): return "(\(count) messages dropped: this client read too slowly)"
    case .status(let status): return statusText(status)
    case .goodbye(let reason): return "acceld says goodbye: \(reason)"
    default: return message.json
    }
}

public func describe(_ event: MotionEvent, clock: EventClock = .wallClock) -> String {
    let t = clock.text(event.t)
    switch event {
    case .orientation(let e): return "\(t) orientation \(e.orientation.rawValue) (was \(e.previous.rawValue))"
    case .shake(.started): return "\(t) shaking"
    case .shake(.ended(_, _, let duration, let peak)): return "\(t) shake over: \(fixed(duration, 2)) s, peak \(fixed(peak, 2)) g"
    case .freeFall(.started): return "\(t) falling?"
    case .freeFall(.confirmed): return "\(t) free fall"
    case .freeFall(.withdrawn(_, _, let duration)): return "\(t) no free fall after all (\(fixed(duration, 2)) s low)"
    case .freeFall(.ended(_, _, let duration, let height)): return "\(t) free fall over: \(fixed(duration, 2)) s, about \(fixed(height, 2)) m"
    case .tap(let e): return "\(t) \(e.count == 2 ? "double tap" : "tap") \(e.direction), peak \(fixed(e.peak, 2)) g"
    case .movement(let e): return "\(t) movement \(e.direction), \(fixed(e.duration, 2)) s, peak \(fixed(e.peak, 2)) g"
    }
}

/// "LIS3DH at chip model (rest), ±2 g, 100 Hz, high-resolution mode (12-bit),
/// FIFO read sample by sample": the hello's and device message's fields in words.
public func deviceText(_ d: DeviceInfo) -> String {
    let fifo = d.fifo.map { $0 <= 1 ? ", FIFO kept as a buffer, read sample by sample" : ", FIFO read in batches of \($0) samples" } ?? ""
    let gyroscope = d.gyroscope.map { ", gyroscope ±\($0) dps" } ?? ""
    return "\(d.chip) at \(d.location), ±\(d.range) g, \(d.rate) Hz, \(d.mode) mode (\(d.resolution)-bit)\(fifo)\(gyroscope)"
}

public func statusText(_ status: StatusReport) -> String {
    let d = status.device, c = status.counters
    let uptime = Int(status.uptime)
    return """
        device: \(d.chip) at \(d.location), ±\(d.range) g, \(d.rate) Hz, \(d.state)\(d.message.map { " (\($0))" } ?? "")
        up \(uptime / 3600) h \(uptime / 60 % 60) min \(uptime % 60) s, serving \(status.clients) client(s)
        samples published \(c.published), lost \(c.lost) (overruns \(c.overruns)), empty reads \(c.emptyReads)
        bus errors \(c.busErrors), recoveries \(c.recoveries), reconfigurations \(c.reconfigurations)
        """
}
