// SPDX-License-Identifier: Apache-2.0
import Foundation
import Testing
import TestSupport

/// The unit files parse and make sense to systemd (a booted systemd is the
/// install issue's boot test; this is the static check).
@Suite("systemd units")
struct SystemdUnitTests {
    static let analyzer = "/usr/bin/systemd-analyze"

    @Test("systemd-analyze verify accepts acceld.service and acceld.socket")
    func verify() throws {
        guard FileManager.default.isExecutableFile(atPath: Self.analyzer) else {
            Issue.record("systemd-analyze is missing: scripts/test.sh installs the systemd package")
            return
        }
        // verify checks that ExecStart exists: point it at the built binary.
        let directory = scratchDirectory()
        let service = try String(contentsOfFile: repositoryRoot + "/systemd/acceld.service", encoding: .utf8)
            .replacingOccurrences(of: "/usr/bin/acceld", with: acceldBinary)
        try service.write(toFile: directory + "/acceld.service", atomically: true, encoding: .utf8)
        try FileManager.default.copyItem(atPath: repositoryRoot + "/systemd/acceld.socket", toPath: directory + "/acceld.socket")
        let result = try run(Self.analyzer, ["verify", directory + "/acceld.socket", directory + "/acceld.service"])
        #expect(result.status == 0, "\(result.stdout)\(result.stderr)")
        #expect(result.stderr.isEmpty, "no warnings: \(result.stderr)")
    }

    @Test("the service is what the design asks for: notify, watchdog, socket kept across restarts, one device")
    func essentials() throws {
        let service = try String(contentsOfFile: repositoryRoot + "/systemd/acceld.service", encoding: .utf8)
        for line in ["Type=notify", "WatchdogSec=", "Restart=on-failure", "User=acceld", "SupplementaryGroups=i2c",
                     "RuntimeDirectory=acceld", "RuntimeDirectoryPreserve=yes", "StateDirectory=acceld",
                     "DevicePolicy=closed", "DeviceAllow=/dev/i2c-1 rw", "ProtectSystem=strict", "ExecReload=/bin/kill -HUP $MAINPID"] {
            #expect(service.contains("\n" + line), "missing \(line)")
        }
        let socket = try String(contentsOfFile: repositoryRoot + "/systemd/acceld.socket", encoding: .utf8)
        #expect(socket.contains("ListenStream=/run/acceld/acceld.sock"))
        let config = try String(contentsOfFile: repositoryRoot + "/Config/acceld.conf", encoding: .utf8)
        #expect(config.contains("path = /run/acceld/acceld.sock"), "the daemon's default socket is the socket unit's")
        #expect(config.contains("calibration-file = /var/lib/acceld/"), "state stays in StateDirectory")
    }

    @Test("systemd-analyze verify accepts the gateway's units; the daemon keeps no network, the gateway its own user")
    func gateway() throws {
        guard FileManager.default.isExecutableFile(atPath: Self.analyzer) else {
            Issue.record("systemd-analyze is missing: scripts/test.sh installs the systemd package")
            return
        }
        let directory = scratchDirectory()
        let text = try String(contentsOfFile: repositoryRoot + "/systemd/acceld-gateway.service", encoding: .utf8)
        try text.replacingOccurrences(of: "/usr/bin/acceld-gateway", with: repositoryRoot + "/.build/debug/acceld-gateway")
            .write(toFile: directory + "/acceld-gateway.service", atomically: true, encoding: .utf8)
        try FileManager.default.copyItem(atPath: repositoryRoot + "/systemd/acceld-gateway.socket", toPath: directory + "/acceld-gateway.socket")
        let result = try run(Self.analyzer, ["verify", directory + "/acceld-gateway.socket", directory + "/acceld-gateway.service"])
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
