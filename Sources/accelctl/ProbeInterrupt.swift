// SPDX-License-Identifier: Apache-2.0
import AccelConfiguration
import AccelCore
import AccelDriver
import AccelParts
import AccelTools

extension ProbeCommand {
    /// For the first supported chip found: which of its pins reaches the
    /// GPIO line `spec` names (InterruptWiring). With --simulate the model's
    /// board has INT1 wired to the line `model`.
    func findWiring(_ spec: String, _ findings: [ProbeFinding], model: ChipModel?, time: TimeSource) {
        let named = model?.profile ?? chip.part.flatMap(ChipProfile.named)
        let found = findings.lazy.compactMap { finding -> (ProbeFinding, ChipProfile)? in
            guard let id = finding.whoAmI else { return nil }
            let candidates = ChipProfile.candidates(whoAmI: id)
            guard let profile = named ?? (candidates.count == 1 ? candidates[0] : nil), profile.whoAmI == id else { return nil }
            return (finding, profile)
        }.first
        guard let (finding, profile) = found else {
            print("the INT pins: no chip to route them (name the part with --part where WHO_AM_I is shared)")
            return
        }
        let line: InterruptLine = guarded {
            if let model {
                guard spec == DeviceSettings.modelLine else { throw ToolError.usage("with --simulate the line is the model's: --interrupt model") }
                return SimulatedInterruptLine(model: model, pin: .int1, time: time)
            }
            return try GPIOLine(GPIOLineSpec(parsing: spec), consumer: "accelctl probe")
        }
        let results: [InterruptWiring.Finding] = guarded {
            let bus: RegisterBus = try model ?? I2CBus(path: finding.bus, address: finding.address, force: chip.force, allowByteReads: chip.allowByteReads)
            let driver = try Accelerometer(bus: bus, time: time, part: profile)
            defer { try? driver.powerDown() }
            return try InterruptWiring.find(driver: driver, line: line, configuration: driver.defaultConfiguration(), time: time)
        }
        print("the INT pins of the \(profile.name) at \(finding.bus) \(hex(finding.address)):")
        for result in results { print("  \(result.verdict(line: line.description))") }
        for pin in ChipProfile.InterruptPin.allCases where !results.contains(where: { $0.pin == pin }) {
            print("  \(pin.label): the \(profile.name) cannot put data ready on it; not tried")
        }
    }
}

