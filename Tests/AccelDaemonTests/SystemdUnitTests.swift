// SPDX-License-Identifier: Apache-2.0
import Foundation
import Testing
import TestSupport

/// The unit files parse and make sense to systemd (a booted systemd is the
/// install issue's boot test; this is the static check).
@Suite("systemd units")
struct SystemdUnitTests {
    static let analyzer = "/usr/bin/systemd-analyze"

    /// `systemd-analyze verify` on a service and its socket from systemd/,
    /// the service's ExecStart pointed at the built binary (verify checks
    /// that it exists); nil, with an issue, when systemd-analyze is missing.
    func verify(_ name: String, binary: String, built: String) throws -> ProcessResult? {
        guard FileManager.default.isExecutableFile(atPath: Self.analyzer) else {
            Issue.record("systemd-analyze is missing: scripts/test.sh installs the systemd package")
            return nil
        }
        let directory = scratchDirectory()
        let service = try String(contentsOfFile: repositoryRoot + "/systemd/\(name).service", encoding: .utf8)
            .replacingOccurrences(of: binary, with: built)
        try service.write(toFile: directory + "/\(name).service", atomically: true, encoding: .utf8)
        try FileManager.default.copyItem(atPath: repositoryRoot + "/systemd/\(name).socket", toPath: directory + "/\(name).socket")
        return try run(Self.analyzer, ["verify", directory + "/\(name).socket", directory + "/\(name).service"])
    }

    @Test("systemd-analyze verify accepts acceld.service and acceld.socket")
    func verify() throws {
        guard let result = try verify("acceld", binary: "/usr/bin/acceld", built: acceldBinary) else { return }
        #expect(result.status == 0, "\(result.stdout)\(result.stderr)")
        #expect(result.stderr.isEmpty, "no warnings: \(result.stderr)")
    }

    @Test("the service is what the design asks for: notify, watchdog, socket kept across restarts, one device")
    func essentials() throws {
        let service = try String(contentsOfFile: repositoryRoot + "/systemd/acceld.service", encoding: .utf8)
        for line in ["Type=notify", "WatchdogSec=", "Restart=on-failure", "User=acceld", "SupplementaryGroups=i2c",
                     "RuntimeDirectory=acceld", "RuntimeDirectoryPreserve=yes", "StateDirectory=acceld",
                     "DevicePolicy=closed", "DeviceAllow=/dev/i2c-1 rw", "ProtectSystem=strict", "ExecReload=/bin/kill -HUP $MAINPID",
                     // The real-time sampler: granted by the limit alone, and not filtered away.
                     "LimitRTPRIO=10", "RestrictRealtime=no", "SystemCallFilter=sched_setscheduler"] {
            #expect(service.contains("\n" + line), "missing \(line)")
        }
        let socket = try String(contentsOfFile: repositoryRoot + "/systemd/acceld.socket", encoding: .utf8)
        #expect(socket.contains("ListenStream=/run/acceld/acceld.sock"))
        let config = try String(contentsOfFile: repositoryRoot + "/Config/acceld.conf", encoding: .utf8)
        #expect(config.contains("path = /run/acceld/acceld.sock"), "the daemon's default socket is the socket unit's")
        #expect(config.contains("calibration-file = /var/lib/acceld/"), "state stays in StateDirectory")
        #expect(config.contains("realtime-priority = 10"), "the priority the unit's LimitRTPRIO= grants")
        #expect(!service.contains("CAP_SYS_NICE"), "no capability for it")
    }

    @Test("systemd-analyze verify accepts the gateway's units; the daemon keeps no network, the gateway its own user")
    func gateway() throws {
        guard let result = try verify("acceld-gateway", binary: "/usr/bin/acceld-gateway",
                                      built: buildDirectory + "/acceld-gateway") else { return }
        let text = try String(contentsOfFile: repositoryRoot + "/systemd/acceld-gateway.service", encoding: .utf8)
        #expect(result.status == 0, "\(result.stdout)\(result.stderr)")
        // Units it names that this machine lacks (acceld.socket) are fine.
        let warnings = result.stderr.split(separator: "\n").filter { !$0.contains("acceld.socket") }
        #expect(warnings.isEmpty, "no warnings: \(warnings)")
        for line in ["User=acceld-gateway", "SupplementaryGroups=acceld", "ProtectSystem=strict", "CapabilityBoundingSet=\n", "Type=notify"] {
            #expect(text.contains("\n" + line), "missing \(line)")
        }
        let daemon = try String(contentsOfFile: repositoryRoot + "/systemd/acceld.service", encoding: .utf8)
        #expect(daemon.contains("\nIPAddressDeny=any") && daemon.contains("\nRestrictAddressFamilies=AF_UNIX\n"), "acceld itself stays off the network")
    }
}
