// SPDX-License-Identifier: Apache-2.0
import AccelCore

/// One settable key: where it lives, how to parse it, what it means.
struct ConfigKey {
    let section: String
    let name: String
    let help: String
    /// Parses `text` into the configuration, or returns why it cannot.
    let set: (inout Configuration, String) -> String?
    let get: (Configuration) -> String

    var fullName: String { "[\(section)] \(name)" }

    static func number(_ section: String, _ name: String, _ path: WritableKeyPath<Configuration, Double>,
                       _ allowed: ClosedRange<Double>, unit: String, _ help: String) -> ConfigKey {
        ConfigKey(section: section, name: name, help: help, set: { config, text in
            guard let value = Double(text), value.isFinite else { return "'\(text)' is not a number (\(unit))" }
            guard allowed.contains(value) else {
                return "\(text) is out of range: allowed \(fixed(allowed.lowerBound, 3))..\(fixed(allowed.upperBound, 3)) \(unit)"
            }
            config[keyPath: path] = value
            return nil
        }, get: { String($0[keyPath: path]) })
    }

    /// A value from a list, or `auto` (nil) for the part's own choice.
    static func automatic<Value>(_ section: String, _ name: String, _ path: WritableKeyPath<Configuration, Value?>,
                                 choices: [String], canonical: @escaping (String) -> Value?, _ help: String) -> ConfigKey {
        ConfigKey(section: section, name: name, help: help, set: { config, text in
            if text == "auto" {
                config[keyPath: path] = nil
                return nil
            }
            guard choices.contains(where: { $0.uppercased() == text.uppercased() }), let value = canonical(text) else {
                return "'\(text)' is not one of auto, " + choices.joined(separator: ", ")
            }
            config[keyPath: path] = value
            return nil
        }, get: { $0[keyPath: path].map { "\($0)" } ?? "auto" })
    }

    static func text(_ section: String, _ name: String, _ path: WritableKeyPath<Configuration, String>, _ help: String) -> ConfigKey {
        ConfigKey(section: section, name: name, help: help, set: { config, text in
            config[keyPath: path] = text == "\"\"" ? "" : text
            return nil
        }, get: { $0[keyPath: path] })
    }

    static func flag(_ section: String, _ name: String, _ path: WritableKeyPath<Configuration, Bool>, _ help: String) -> ConfigKey {
        ConfigKey(section: section, name: name, help: help, set: { config, text in
            switch text {
            case "true", "yes", "on": config[keyPath: path] = true
            case "false", "no", "off": config[keyPath: path] = false
            default: return "'\(text)' is not a yes/no value: use true or false"
            }
            return nil
        }, get: { String($0[keyPath: path]) })
    }

    static func integer(_ section: String, _ name: String, _ path: WritableKeyPath<Configuration, Int>,
                        _ allowed: [Int]? = nil, within: ClosedRange<Int>? = nil, _ help: String) -> ConfigKey {
        ConfigKey(section: section, name: name, help: help, set: { config, text in
            guard let value = Int(text) else { return "'\(text)' is not a whole number" }
            if let allowed, !allowed.contains(value) {
                return "\(value) is not one of " + allowed.map(String.init).joined(separator: ", ")
            }
            if let within, !within.contains(value) { return "\(value) is out of range: allowed \(within.lowerBound)..\(within.upperBound)" }
            config[keyPath: path] = value
            return nil
        }, get: { String($0[keyPath: path]) })
    }
}
