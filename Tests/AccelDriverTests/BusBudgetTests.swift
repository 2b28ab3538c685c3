// SPDX-License-Identifier: Apache-2.0
import Foundation
import Testing
@testable import AccelDriver
import AccelParts

@Suite("Bus budget")
struct BusBudgetTests {
    @Test("a read costs its bytes' clocks and 30 more: START, two addresses, the register, repeated START, STOP")
    func readBits() {
        #expect(BusBudget.readBits(0) == 30)
        #expect(BusBudget.readBits(6) == 84)
    }

    @Test("the LIS3DH at 5,376 Hz: a sample at a time needs 661 kbit/s; 400 kHz carries it from a watermark of 13; 100 kHz never")
    func lis3dhFast() {
        let budget = BusBudget(profile: .lis3dh, rate: 5_376)
        #expect(Int(budget.bitsPerSecond(watermark: 1)) == 5_376 * (39 + 84))
        #expect(budget.smallestWatermark(clock: 400_000) == 13)
        #expect(budget.share(clock: 400_000, watermark: 13) <= BusBudget.usableShare)
        #expect(budget.share(clock: 400_000, watermark: 12) > BusBudget.usableShare)
        #expect(budget.smallestWatermark(clock: 100_000) == nil)
        #expect(budget.slowestClock == 400_000)
        #expect(BusBudget.fastestRate(profile: .lis3dh, among: [100, 200, 400, 1_344, 1_620, 5_376], clock: 100_000) == 1_344)
    }

    @Test("the LSM6DSO with its gyroscope: 3,330 Hz needs Fast-mode Plus; 6,660 Hz more than 80 % of it, so no I2C clock")
    func sixAxisFast() {
        #expect(BusBudget(profile: .lsm6dso, rate: 3_330).slowestClock == 1_000_000)
        let fastest = BusBudget(profile: .lsm6dso, rate: 6_660)
        #expect(fastest.slowestClock == nil)
        #expect(fastest.share(clock: 1_000_000, watermark: fastest.largestWatermark) > 0.8)
        #expect(BusBudget(profile: .lsm6dso, rate: 104).smallestWatermark(clock: 100_000) == 1)
    }

    @Test("parts without a FIFO: one burst per sample; the LIS331DLH at 1,000 Hz needs 400 kHz")
    func withoutFIFO() {
        #expect(BusBudget(profile: .lis302dl, rate: 400).smallestWatermark(clock: 100_000) == 0)
        let budget = BusBudget(profile: .lis331dlh, rate: 1_000)
        #expect(budget.smallestWatermark(clock: 100_000) == nil && budget.slowestClock == 400_000)
    }

    @Test("the refusal names the rate, the clock, the clock needed, the Pi's setting and a rate that fits; exit 78")
    func refusal() {
        let error = DriverError.busTooSlow(location: "/dev/i2c-1 at 0x18", part: "LIS3DH", rate: 5_376, bitsPerSecond: 313_000,
                                           clock: 100_000, needed: 400_000, fastestRate: 1_344)
        #expect(error.description.contains("needs 313 kbit/s") && error.description.contains("100 kHz"))
        #expect(error.description.contains("dtparam=i2c_arm_baudrate=400000") && error.description.contains("1344 Hz or less"))
        #expect(error.exitCode == 78)
    }

    @Test("the adapter's clock from its device-tree node: one big-endian cell; none where there is no node")
    func clockFromSysfs() throws {
        let root = FileManager.default.temporaryDirectory.appendingPathComponent("acceld-sysfs-\(UUID().uuidString)").path
        defer { try? FileManager.default.removeItem(atPath: root) }
        let node = root + "/bus/i2c/devices/i2c-1/of_node"
        try FileManager.default.createDirectory(atPath: node, withIntermediateDirectories: true)
        try Data([0x00, 0x06, 0x1A, 0x80]).write(to: URL(fileURLWithPath: node + "/clock-frequency"))
        #expect(I2CBus.clockFrequency(node: "/dev/i2c-1", sysfs: root) == 400_000)
        #expect(I2CBus.clockFrequency(node: "/dev/i2c-2", sysfs: root) == nil)
        #expect(I2CBus.clockFrequency(node: "/dev/spidev0.0", sysfs: root) == nil)
    }
}

@Suite("docs/INSTALL.md's table of clocks")
struct BusBudgetDocumentTests {
    /// The rows of the table under "### The bus's clock".
    func rows() throws -> [[String]] {
        var parts = #filePath.split(separator: "/").map(String.init)
        parts.removeLast(3)  // Tests/AccelDriverTests/BusBudgetTests.swift
        let text = try String(contentsOfFile: "/" + (parts + ["docs", "INSTALL.md"]).joined(separator: "/"), encoding: .utf8)
        let after = try #require(text.components(separatedBy: "### The bus's clock").dropFirst().first)
        let section = after.components(separatedBy: "\n## ")[0]
        return section.split(separator: "\n").filter { $0.hasPrefix("| ") && !$0.hasPrefix("| part") }
            .map { $0.split(separator: "|").map { $0.trimmingCharacters(in: .whitespaces) } }
    }

    @Test("every row is what BusBudget computes: the rate's cost, batched, the slowest clock, the batch acceld reads there")
    func table() throws {
        let rows = try rows()
        #expect(rows.count >= 8)
        for row in rows {
            let name = String(row[0].prefix { $0 != "," && $0 != " " })
            let profile = try #require(ChipProfile.named(name), "\(row)")
            let rate = try #require(Int(row[1].replacingOccurrences(of: ",", with: "").replacingOccurrences(of: " Hz", with: "")))
            let budget = BusBudget(profile: profile, rate: rate)
            func kbit(_ watermark: Int) -> String {
                let value = Int(budget.bitsPerSecond(watermark: watermark)) / 1_000
                return (value >= 1_000 ? "\(value / 1_000),\(String(format: "%03d", value % 1_000))" : "\(value)") + " kbit/s"
            }
            #expect(row[2] == kbit(1), "\(row)")
            #expect(row[3] == (budget.largestWatermark > 0 ? kbit(budget.largestWatermark) : "(no FIFO)"), "\(row)")
            if let clock = budget.slowestClock {
                #expect(row[4] == clockText(clock), "\(row)")
                #expect(row[5] == "\(max(1, budget.smallestWatermark(clock: clock) ?? 0))", "\(row)")
            } else {
                #expect(row[4].hasPrefix("none: \(Int((budget.share(clock: 1_000_000, watermark: budget.largestWatermark) * 100).rounded())) %"), "\(row)")
            }
        }
    }
}
