// SPDX-License-Identifier: Apache-2.0
import AccelCore
import AccelMachine
import AccelMotion

/// Everything a configuration file can set. Defaults are the ones in
/// Config/acceld.conf (a test keeps the two equal).
public struct Configuration: Sendable, Equatable {
    public var device = DeviceSettings()
    public var motion = MotionSettings()
    public var socket = SocketSettings()
    public var daemon = DaemonSettings()
    public var gateway = GatewaySettings()
    public var ros2 = ROS2Settings()
    public var power = PowerSettings()
    public var vibration = VibrationSettings()
    public init() {}
}

/// A configuration file problem, with the file and line.
public struct ConfigurationError: Error, Equatable, CustomStringConvertible {
    public let source: String
    public let line: Int
    public let message: String
    /// "file:line: message", or "file: message" for the file as a whole (line 0).
    public var description: String { line > 0 ? "\(source):\(line): \(message)" : "\(source): \(message)" }
}

extension Configuration {
    /// Parses configuration text on top of the defaults. Format: INI-style
    /// `[section]` headers, `key = value` lines, comments from `#` or `;` at
    /// the start of a line or from ` #` after a value.
    public init(parsing text: String, source: String = "configuration") throws {
        self.init()
        let keys = Configuration.keys
        let sections = Set(keys.map(\.section))
        var section: String?
        var seen: [String: Int] = [:]
        var number = 0
        for rawLine in text.split(separator: "\n", omittingEmptySubsequences: false) {
            number += 1
            var line = rawLine.trimmingWhitespace()
            // Whole-line comments start with # or ;, trailing ones with " #"
            // (';' separates mount-matrix rows, so it never starts a trailing one).
            if line.first == "#" || line.first == ";" { continue }
            if let hash = line.indices.first(where: { line[$0] == "#" && $0 > line.startIndex && " \t".contains(line[line.index(before: $0)]) }) {
                line = line[..<hash].trimmingWhitespace()
            }
            if line.isEmpty { continue }
            func fail(_ message: String) -> ConfigurationError { ConfigurationError(source: source, line: number, message: message) }
            if line.first == "[" {
                guard line.last == "]" else { throw fail("a section header looks like [name]; found '\(line)'") }
                let name = String(line.dropFirst().dropLast()).trimmingWhitespace()
                guard sections.contains(name) else {
                    throw fail("unknown section [\(name)]" + suggestion(name, among: Array(sections)) + "; sections are " + sections.sorted().map { "[\($0)]" }.joined(separator: ", "))
                }
                section = name
                continue
            }
            guard let equals = line.firstIndex(of: "=") else { throw fail("expected 'key = value', found '\(line)'") }
            let name = String(line[..<equals]).trimmingWhitespace()
            let value = String(line[line.index(after: equals)...]).trimmingWhitespace()
            guard let section else { throw fail("'\(name)' comes before any [section]; put it under one of " + sections.sorted().map { "[\($0)]" }.joined(separator: ", ")) }
            guard let key = keys.first(where: { $0.section == section && $0.name == name }) else {
                let names = keys.filter { $0.section == section }.map(\.name)
                throw fail("unknown key '\(name)' in [\(section)]" + suggestion(name, among: names) + "; known keys: " + names.joined(separator: ", "))
            }
            if let first = seen[key.fullName] { throw fail("\(key.fullName) is set twice (first on line \(first))") }
            seen[key.fullName] = number
            guard !value.isEmpty else { throw fail("\(key.fullName) has no value (\(key.help))") }
            if let reason = key.set(&self, value) { throw fail("\(key.fullName): \(reason)") }
        }
        // Range, rate and mode against the named part's own table, at the
        // line that asked for what it lacks.
        if let profile = device.profile, let (culprit, reason) = device.problem(on: profile) {
            throw ConfigurationError(source: source, line: seen["[device] \(culprit)"] ?? seen["[device] part"] ?? 0,
                                     message: "[device] \(culprit): \(reason)")
        }
        if let reason = power.problem(with: device) {
            throw ConfigurationError(source: source, line: seen["[power] wake-on-motion"] ?? 0, message: "[power] \(reason)")
        }
    }

    /// Sections a client may change at run time with `configure`.
    static let tunableSections: Set<String> = ["gravity", "orientation", "shake", "freefall", "movement", "tap", "fusion"]

    /// Applies "section.key" = value pairs (the `configure` request's
    /// tunables); returns why one cannot be applied, or nil.
    public mutating func applyTunables(_ tunables: [String: String]) -> String? {
        let keys = Configuration.keys
        for (name, value) in tunables.sorted(by: { $0.key < $1.key }) {
            let parts = name.split(separator: ".", maxSplits: 1).map(String.init)
            guard parts.count == 2, let key = keys.first(where: { $0.section == parts[0] && $0.name == parts[1] }) else {
                let known = keys.filter { Configuration.tunableSections.contains($0.section) }.map { "\($0.section).\($0.name)" }
                return "unknown tunable \"\(name)\"" + suggestion(name, among: known) + "; tunables are named section.key as in the configuration file, e.g. shake.threshold"
            }
            guard Configuration.tunableSections.contains(key.section) else {
                return "\(name) cannot change at run time: edit the configuration file and restart acceld"
            }
            if let reason = key.set(&self, value) { return "\(name): \(reason)" }
        }
        return nil
    }

    /// Reads and parses a file.
    public init(contentsOf path: String) throws {
        guard let text = readTextFile(path) else {
            throw ConfigurationError(source: path, line: 0, message: "cannot read the configuration file (\(systemError())): check the path given to --config, or leave --config out for the defaults")
        }
        // A program or an image: its lines would be quoted back as noise.
        if text.utf8.contains(0) {
            throw ConfigurationError(source: path, line: 0, message: "is not a configuration file: it holds binary data; --config takes a text file of [section] and key = value lines, such as /etc/acceld/acceld.conf")
        }
        try self.init(parsing: text, source: path)
    }
}
