// SPDX-License-Identifier: Apache-2.0
import AccelCore
import AccelDriver
import AccelParts
import Logging

/// What the sampler does when transfers fail: the first failure is retried
/// at once (one glitch is not worth a message), then the outage is told to
/// clients once (`lost`) and retried with a back-off doubling from 10 ms
/// to 250 ms, until transfers work again (`back`, with the outage's
/// length). A different part answering at the address is told at once
/// (`wrong-part`) and nothing is served until the right one is back.
/// The sampler does the reopening; this keeps the policy and the words.
struct Recovery {
    private struct Outage {
        var since: UInt64
        var delay: UInt64
        var announced: Bool
    }

    private var outage: Outage?
    private var wrongPartAnnounced = false
    private let logger = Logger(label: "acceld.sampler")

    var isFailing: Bool { outage != nil }

    /// A transfer failed at `now`: nanoseconds until the next try, and what
    /// to tell clients (once an outage).
    mutating func failed(_ error: Error, at now: UInt64) -> (retryIn: UInt64, event: DeviceEvent?) {
        if case DriverError.wrongPart = error {
            var event: DeviceEvent?
            if !wrongPartAnnounced {
                wrongPartAnnounced = true
                logger.error("\(error)")
                event = DeviceEvent(state: .wrongPart, message: "\(error)")
            }
            outage = Outage(since: outage?.since ?? now, delay: 250_000_000, announced: true)
            return (250_000_000, event)
        }
        guard var outage else {
            self.outage = Outage(since: now, delay: 10_000_000, announced: false)
            return (1_000_000, nil)
        }
        var event: DeviceEvent?
        if !outage.announced {
            outage.announced = true
            logger.error("device lost: \(error)")
            event = DeviceEvent(state: .lost, message: "\(error)")
        }
        let delay = outage.delay
        outage.delay = min(outage.delay * 2, 250_000_000)
        self.outage = outage
        return (delay, event)
    }

    /// Transfers work again at `now`: the `back` event when clients were
    /// told of the outage.
    mutating func recovered(at now: UInt64) -> DeviceEvent? {
        defer {
            outage = nil
            wrongPartAnnounced = false
        }
        guard let outage, outage.announced else { return nil }
        let seconds = Double(now - outage.since) / 1e9
        logger.notice("device back after \(fixed(seconds, 3)) s")
        return DeviceEvent(state: .back, message: "the chip answers again after \(fixed(seconds, 3)) s")
    }
}
