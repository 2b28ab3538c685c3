// SPDX-License-Identifier: Apache-2.0
import AccelCore
import AccelDriver
import AccelParts

/// Bring-up: which of the chip's pins reaches a GPIO line. Data ready is
/// routed to each pin the part can put it on, in turn; the chip is read
/// whenever the line rises (data ready is latched: unread, it would never
/// rise again) and at each silence, and the edges are counted and set
/// against the chip's rate.
///
/// Only the line named is watched: on a Raspberry Pi, requesting every
/// "free" line as an input would turn pins that serve I2C, SPI or a UART
/// through their alternate function into GPIO inputs, and break them.
public enum InterruptWiring {
    public struct Finding: Sendable, Equatable {
        public let pin: ChipProfile.InterruptPin
        public let edges: Int
        public let seconds: Double
        public let rate: Int
        /// From the first edge's kernel stamp to the last's, s: the rate
        /// between them is the line's own, whatever the host's scheduling
        /// did to the window's ends.
        public var span: Double?
        /// Edges this probe itself cost: data ready is latched, so a read
        /// k periods after an edge let k samples pass with the pin still
        /// up (no edge); and edges the kernel queued but dropped, which its
        /// sequence numbers show. The wiring is not to blame for these.
        public var missedByProbe: Int

        public init(pin: ChipProfile.InterruptPin, edges: Int, seconds: Double, rate: Int, span: Double? = nil, missedByProbe: Int = 0) {
            self.pin = pin
            self.edges = edges
            self.seconds = seconds
            self.rate = rate
            self.span = span
            self.missedByProbe = missedByProbe
        }

        public var edgesPerSecond: Double { perSecond(edges) }

        /// The rate had the probe read every edge in time.
        var explainedPerSecond: Double { perSecond(edges + missedByProbe) }

        private func perSecond(_ count: Int) -> Double {
            guard let span, edges >= 3, span > 0 else { return Double(count) / seconds }
            return Double(count - 1) / span
        }

        /// The finding in words, with the line's description.
        public func verdict(line: String) -> String {
            let measured = edgesPerSecond
            let figures = "\(fixed(measured, 1)) edges/s against the chip's \(rate) Hz"
            if edges == 0 { return "\(pin.label) is wired nowhere: no edge on \(line) in \(fixed(seconds, 1)) s" }
            if measured > 1.6 * Double(rate) {
                return "\(pin.label) reaches \(line), but \(figures): more than the chip makes (another chip's pin on the same line, or a line that rings)"
            }
            if measured < 0.85 * Double(rate) {
                if explainedPerSecond >= 0.85 * Double(rate) {
                    return "\(pin.label) reaches \(line): \(figures), but this probe read late (\(missedByProbe) edges lost to its own reads, a busy machine), not the wiring; set interrupt-pin = \(pin.rawValue), or probe again on a quieter machine for the figure"
                }
                return "\(pin.label) reaches \(line), but \(figures): edges go missing (a weak pull, a level shifter, or a line shared with something that holds it)"
            }
            return "\(pin.label) reaches \(line): \(figures), as it should; set interrupt-pin = \(pin.rawValue)"
        }
    }

    /// Routes data ready to each pin in turn for `seconds` and counts the
    /// line's edges; leaves the chip configured as `configuration` says
    /// with no pin routed.
    public static func find(driver: Accelerometer, line: InterruptLine, configuration: DeviceConfiguration,
                            time: TimeSource, seconds: Double = 0.5) throws -> [Finding] {
        var findings: [Finding] = []
        defer { try? driver.configure(configuration) }
        let pins = ChipProfile.InterruptPin.allCases.filter { driver.profile.interruptPins?.route(.dataReady, to: $0) != nil }
        let period = UInt64(1e9 / Double(configuration.rate))
        for pin in pins {
            var routed = configuration
            routed.interruptPin = pin
            routed.fifoWatermark = 0
            try driver.configure(routed)
            _ = try driver.read()
            _ = try line.wait(nanoseconds: 0)  // edges from before the routing do not count
            let start = time.nanoseconds, end = start + UInt64(seconds * 1e9)
            var edges = 0, missedByProbe = 0
            var first: UInt64?, last: UInt64?, sequence: UInt32?
            while time.nanoseconds < end {
                let found = try line.wait(nanoseconds: min(3 * period, end - time.nanoseconds))
                for edge in found {
                    // A jump in the kernel's count: edges it queued and dropped.
                    if let sequence { missedByProbe += max(Int(edge.sequence &- sequence) - 1, 0) }
                    sequence = edge.sequence
                }
                edges += found.count
                first = first ?? found.first?.instant
                last = found.last?.instant ?? last
                _ = try driver.read()
                // Read k whole periods after the edge: k samples came while the pin stayed up.
                if let edge = found.last, time.nanoseconds > edge.instant { missedByProbe += Int((time.nanoseconds - edge.instant) / period) }
            }
            let span = first.flatMap { first in last.map { Double($0 - first) / 1e9 } }
            findings.append(Finding(pin: pin, edges: edges, seconds: Double(time.nanoseconds - start) / 1e9, rate: configuration.rate,
                                    span: span, missedByProbe: missedByProbe))
        }
        return findings
    }
}
