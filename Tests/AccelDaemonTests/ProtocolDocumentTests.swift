// SPDX-License-Identifier: Apache-2.0
import Foundation
import Testing
import TestSupport

/// docs/PROTOCOL.md's example session, replayed against the real daemon:
/// every reply must have the documented class and fields, and the fields
/// that do not depend on timing must have the documented values; every
/// line it writes matches docs/protocol.schema.json.
@Suite("The protocol document", .ownThread)
struct ProtocolDocumentTests {
    static let stableKeys: Set<String> = ["class", "protocol", "version", "chip", "range", "rate", "state", "streams",
                                          "fields", "orientation", "previous", "code", "message", "request", "event"]

    func session() throws -> [(fromClient: Bool, line: String)] {
        let text = try String(contentsOfFile: repositoryRoot + "/docs/PROTOCOL.md", encoding: .utf8)
        let block = try #require(text.components(separatedBy: "```session\n").dropFirst().first?.components(separatedBy: "```").first)
        return block.split(separator: "\n").compactMap { line in
            if line.hasPrefix("→ ") { return (true, String(line.dropFirst(2))) }
            if line.hasPrefix("← ") { return (false, String(line.dropFirst(2))) }
            return nil
        }
    }

    func compare(_ expected: [String: Any], _ actual: [String: Any], _ path: String = "") {
        #expect(Set(expected.keys) == Set(actual.keys), "\(path) keys: documented \(expected.keys.sorted()), got \(actual.keys.sorted())")
        for (key, value) in expected {
            if let nested = value as? [String: Any], let other = actual[key] as? [String: Any] {
                compare(nested, other, path + key + ".")
            } else if Self.stableKeys.contains(key), key != "location" {
                #expect("\(value)" == "\(actual[key] ?? "missing")", "\(path)\(key)")
            }
        }
    }

    @Test("the example session in docs/PROTOCOL.md is what the daemon says")
    func replaySession() throws {
        let steps = try session()
        #expect(steps.count >= 15)
        // The documented setup: held on a corner for 1.5 s, then laid flat.
        let scratch = scratchDirectory()
        let trace = scratch + "/session.csv"
        var rows = "# example session\nt,x,y,z\n"
        let r = 1 / 3.0.squareRoot()
        for i in 0...6000 {
            let t = Double(i) / 100
            rows += t < 1.5 ? "\(t),\(r),\(r),\(r)\n" : "\(t),0,0,1\n"
        }
        try rows.write(toFile: trace, atomically: true, encoding: .utf8)
        let schema = try ProtocolSchema()
        let daemon = try SocketDaemon(simulate: trace)
        let client = try LineClient(path: daemon.socketPath)
        for step in steps {
            if step.fromClient {
                client.send(step.line + "\n")
                continue
            }
            let expected = try #require(try JSONSerialization.jsonObject(with: Data(step.line.utf8)) as? [String: Any])
            let expectedClass = expected["class"] as! String
            var actual: [String: Any]?
            repeat {
                // Every line the daemon writes, frames between the replies too, matches the description.
                let line = client.readLine(timeout: 5)
                if let line { #expect(schema.problems(in: line, side: .message) == [], "\(line)") }
                actual = line.flatMap { try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any] }
            } while expectedClass != "frame" && actual?["class"] as? String == "frame"
            let message = try #require(actual, "no reply where the document shows \(step.line)")
            compare(expected, message)
        }
        daemon.stop()
    }
}
