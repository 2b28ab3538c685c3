// SPDX-License-Identifier: Apache-2.0
import AccelDriver
import AccelParts

/// Whether the bus carries the rate (BusBudget), and the FIFO watermark it
/// needs: one place for the sampler's open, its reconfigurations, its
/// recoveries and the clients' latency.
extension Sampler {
    /// A bus whose clock the system does not say is taken as Fast mode,
    /// 400 kHz: what every part in the table supports (the chip model too,
    /// so that it batches as a board would).
    static let assumedClock = 400_000

    /// The FIFO watermark for the clients' latency at `rate`, raised to
    /// what the bus needs.
    func fifoWatermark(rate: Int, driver: Accelerometer) -> Int {
        let budget = BusBudget(profile: driver.profile, rate: rate)
        let floor = budget.smallestWatermark(clock: driver.bus.clockFrequency ?? Self.assumedClock) ?? budget.largestWatermark
        return FIFOReader.watermark(latency: latency, rate: rate, profile: driver.profile, atLeast: floor)
    }

    /// Refuses `configuration` at kHz rates on a part without a FIFO, and
    /// when the bus's known clock cannot carry its rate even at the FIFO's
    /// largest watermark; where the clock is not
    /// known, says once per rate what it needs.
    func checkBus(_ configuration: DeviceConfiguration, driver: Accelerometer) throws {
        if configuration.rate >= ChipProfile.kilohertz, driver.profile.fifo == nil {
            let slower = ((try? driver.mode(for: configuration).rates.map(\.hertz)) ?? []).filter { $0 < ChipProfile.kilohertz }
            throw DriverError.noFIFOForRate(part: driver.profile.name, rate: configuration.rate, slowerRates: slower)
        }
        let budget = BusBudget(profile: driver.profile, rate: configuration.rate)
        guard let clock = driver.bus.clockFrequency else {
            if driver.bus is I2CBus, chip.announcedBusRate != configuration.rate {
                chip.announcedBusRate = configuration.rate
                let needed = budget.slowestClock.map { "a bus of \(clockText($0)) or faster" } ?? "more than I2C's 1 MHz carries (SPI)"
                logger.notice("\(driver.bus.location) does not say its clock (no device-tree clock-frequency): the \(budget.part) at \(configuration.rate) Hz needs \(Int(budget.bitsPerSecond(watermark: budget.largestWatermark)) / 1_000) kbit/s at least, \(needed) (docs/INSTALL.md, \"The bus's clock\")")
            }
            return
        }
        guard budget.smallestWatermark(clock: clock) == nil else { return }
        let rates = (try? driver.mode(for: configuration).rates.map(\.hertz)) ?? []
        throw DriverError.busTooSlow(
            location: driver.bus.location, part: budget.part, rate: configuration.rate,
            bitsPerSecond: Int(budget.bitsPerSecond(watermark: budget.largestWatermark)), clock: clock,
            needed: budget.slowestClock, fastestRate: BusBudget.fastestRate(profile: driver.profile, among: rates, clock: clock)
        )
    }
}
