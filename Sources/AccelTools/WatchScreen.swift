// SPDX-License-Identifier: Apache-2.0
import AccelCore
import AccelDriver

/// What `accelctl watch` shows, as plain values.
public struct WatchState: Sendable {
    public var title = ""
    public var range = 2
    public var acceleration = Vector3.zero
    public var gravity = Vector3.zero
    public var user = Vector3.zero
    public var pitch = 0.0
    public var roll = 0.0
    /// With a gyroscope: degrees about the vertical, and the rotation rate
    /// in °/s; nil on a part without one, and then nothing is said of them.
    public var yaw: Double?
    public var rotationRate: Vector3?
    public var orientation = "unknown"
    public var seq: Int = 0
    public var note = ""
    /// Newest last.
    public var events: [String] = []
    public init() {}
}

/// Draws the live view as lines of text: a label, a value and a bar per
/// axis (the classic iPhone accelerometer tutorials' layout), then gravity,
/// user acceleration, attitude, orientation and the last events. Pure, so
/// it is tested without a terminal; `accelctl watch` adds the terminal.
public enum WatchScreen {
    public static func render(_ s: WatchState, width: Int = 80, height: Int = 24) -> [String] {
        let width = max(width, 40)
        var lines: [String] = []
        lines.append(fit("accelctl watch · \(s.title)", width - 9) + "  q quits")
        lines.append("")
        let barWidth = max(width - 24, 10)
        let scale = "-\(s.range) g"
        lines.append(String(repeating: " ", count: 13) + scale + String(repeating: " ", count: max(barWidth / 2 - scale.count, 1)) + "0"
                     + String(repeating: " ", count: max(barWidth / 2 - 4, 1)) + "+\(s.range) g")
        for (name, value) in [("x", s.acceleration.x), ("y", s.acceleration.y), ("z", s.acceleration.z)] {
            lines.append("\(name)  \(signed(value, 3)) g  " + bar(value, range: Double(s.range), width: barWidth))
        }
        lines.append("")
        lines.append("gravity    x \(signed(s.gravity.x, 3))  y \(signed(s.gravity.y, 3))  z \(signed(s.gravity.z, 3)) g")
        lines.append("user       x \(signed(s.user.x, 3))  y \(signed(s.user.y, 3))  z \(signed(s.user.z, 3)) g")
        if let rate = s.rotationRate {
            lines.append("rotation   x \(signed(rate.x, 1))  y \(signed(rate.y, 1))  z \(signed(rate.z, 1)) °/s")
        }
        let yaw = s.yaw.map { "   yaw \(signed($0, 1))°" } ?? ""
        lines.append("pitch \(signed(s.pitch, 1))°   roll \(signed(s.roll, 1))°\(yaw)   orientation \(s.orientation)")
        lines.append(fit("sample \(s.seq)  \(s.note)", width))
        lines.append("")
        lines.append("last events")
        let room = max(height - lines.count, 0)
        let shown = s.events.suffix(room)
        lines += shown.map { "  " + fit($0, width - 2) }
        while lines.count < height { lines.append("") }
        return lines.map { fit($0, width) }
    }

    /// [.........|####......] with the fill from 0 to the value.
    static func bar(_ value: Double, range: Double, width: Int) -> String {
        let inner = width - 2
        let center = inner / 2
        let clamped = min(max(value / range, -1), 1)
        let reach = Int((clamped * Double(center)).rounded())
        var cells = [Character](repeating: ".", count: inner)
        cells[center] = "|"
        if reach > 0 { for i in (center + 1)...min(center + reach, inner - 1) { cells[i] = "#" } }
        if reach < 0 { for i in max(center + reach, 0)..<center { cells[i] = "#" } }
        return "[" + String(cells) + "]"
    }

    static func signed(_ v: Double, _ decimals: Int) -> String {
        let text = fixed(v, decimals)
        let padded = (text.hasPrefix("-") ? text : "+" + text)
        return String(repeating: " ", count: max(0, decimals + 4 - padded.count)) + padded
    }

    static func fit(_ s: String, _ width: Int) -> String {
        s.count <= width ? s : String(s.prefix(max(width - 1, 0))) + "…"
    }
}
