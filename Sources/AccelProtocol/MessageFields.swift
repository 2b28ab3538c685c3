// SPDX-License-Identifier: Apache-2.0
import AccelCore

/// A message that could not be read: which class, and what was wrong.
public struct MessageError: Error, Equatable, Sendable, CustomStringConvertible {
    public let className: String?
    public let reason: String

    public init(_ className: String?, _ reason: String) {
        self.className = className
        self.reason = reason
    }

    public var description: String { className.map { "\($0) message: \(reason)" } ?? reason }
}

/// Typed access to a message's fields. Unknown fields are never looked at
/// (a newer daemon may add some); a field that is missing or of the wrong
/// type is an error naming it.
struct MessageFields {
    let object: JSONObject
    let className: String

    func error(_ reason: String) -> MessageError { MessageError(className, reason) }

    func optional<T>(_ key: String, _ type: String, _ read: (JSONValue) -> T?) throws(MessageError) -> T? {
        guard let raw = object[key], raw != .null else { return nil }
        guard let value = read(raw) else { throw error("\"\(key)\" must be \(type)") }
        return value
    }

    func required<T>(_ key: String, _ type: String, _ read: (JSONValue) -> T?) throws(MessageError) -> T {
        guard let value = try optional(key, type, read) else { throw error("\"\(key)\" is missing") }
        return value
    }

    func number(_ key: String) throws(MessageError) -> Double { try required(key, "a number", \.number) }
    func optionalNumber(_ key: String) throws(MessageError) -> Double? { try optional(key, "a number", \.number) }
    func int(_ key: String) throws(MessageError) -> Int { try required(key, "a whole number", \.int) }
    func optionalInt(_ key: String) throws(MessageError) -> Int? { try optional(key, "a whole number", \.int) }
    func string(_ key: String) throws(MessageError) -> String { try required(key, "a string", \.string) }
    func optionalString(_ key: String) throws(MessageError) -> String? { try optional(key, "a string", \.string) }
    func bool(_ key: String) throws(MessageError) -> Bool { try required(key, "true or false", \.bool) }
    func optionalBool(_ key: String) throws(MessageError) -> Bool? { try optional(key, "true or false", \.bool) }
    func optionalNumbers(_ key: String, count: Int) throws(MessageError) -> [Double]? {
        try optional(key, "an array of \(count) numbers") { $0.numbers(count: count) }
    }
    func strings(_ key: String) throws(MessageError) -> [String] {
        try required(key, "an array of strings") { value in
            value.array.flatMap { items in
                let strings = items.compactMap(\.string)
                return strings.count == items.count ? strings : nil
            }
        }
    }
    func optionalVector(_ key: String) throws(MessageError) -> Vector3? {
        try optional(key, "[x, y, z]") { $0.numbers(count: 3).map { Vector3($0[0], $0[1], $0[2]) } }
    }
    func vector(_ key: String) throws(MessageError) -> Vector3 {
        guard let value = try optionalVector(key) else { throw error("\"\(key)\" is missing") }
        return value
    }
    func nested(_ key: String) throws(MessageError) -> MessageFields {
        MessageFields(object: try required(key, "an object", \.object), className: className)
    }
    func uint64(_ key: String) throws(MessageError) -> UInt64 {
        let value = try int(key)
        guard value >= 0 else { throw error("\"\(key)\" must not be negative") }
        return UInt64(value)
    }
}
