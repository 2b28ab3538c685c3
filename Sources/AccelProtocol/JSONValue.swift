// SPDX-License-Identifier: Apache-2.0
/// A parsed JSON value, for the little JSON acceld and accelctl read:
/// requests, the calibration file, the daemon's messages. Parsed by
/// `JSONParser`, so neither binary links JSONSerialization nor the full
/// Foundation with its ICU data (40 MB of a static binary).
public enum JSONValue: Sendable, Equatable {
    case null
    case bool(Bool)
    case number(Double)
    case string(String)
    case array([JSONValue])
    case object([String: JSONValue])

    /// Parses UTF-8 JSON text (any value at the top, as JSON allows).
    public init(parsing bytes: some Collection<UInt8>) throws {
        self = try JSONParser.parse(bytes)
    }

    public var number: Double? { if case .number(let value) = self { value } else { nil } }
    public var string: String? { if case .string(let value) = self { value } else { nil } }
    public var bool: Bool? { if case .bool(let value) = self { value } else { nil } }
    public var array: [JSONValue]? { if case .array(let value) = self { value } else { nil } }
    public var object: [String: JSONValue]? { if case .object(let value) = self { value } else { nil } }

    /// A number with no fractional part, as an Int.
    public var int: Int? { number.flatMap { $0 == $0.rounded() && abs($0) < 1e15 ? Int($0) : nil } }
    /// An array of numbers only.
    public var numbers: [Double]? {
        guard let values = array, case let numbers = values.compactMap(\.number), numbers.count == values.count else { return nil }
        return numbers
    }

    /// An array of exactly `count` numbers, or nil.
    public func numbers(count: Int) -> [Double]? { numbers.flatMap { $0.count == count ? $0 : nil } }

    /// The value as JSON text; keys in sorted order, so output is stable.
    public var jsonText: String {
        switch self {
        case .null: "null"
        case .bool(let value): value ? "true" : "false"
        case .number: description
        case .string(let value): JSONLine.quoted(value)
        case .array(let values): "[" + values.map(\.jsonText).joined(separator: ",") + "]"
        case .object(let fields):
            "{" + fields.sorted { $0.key < $1.key }.map { JSONLine.quoted($0.key) + ":" + $0.value.jsonText }.joined(separator: ",") + "}"
        }
    }
}

/// Read as a person would write it: a string without quotes, 2 rather than
/// 2.0; arrays and objects as JSON.
extension JSONValue: CustomStringConvertible {
    public var description: String {
        switch self {
        case .string(let value): value
        case .number(let value): int.map(String.init) ?? "\(value)"
        default: jsonText
        }
    }
}

/// So `message["key"] ?? "?"` and `?? 0` read naturally.
extension JSONValue: ExpressibleByStringLiteral, ExpressibleByIntegerLiteral, ExpressibleByFloatLiteral {
    public init(stringLiteral value: String) { self = .string(value) }
    public init(integerLiteral value: Int) { self = .number(Double(value)) }
    public init(floatLiteral value: Double) { self = .number(value) }
}

/// One message from acceld, by field.
public typealias JSONObject = [String: JSONValue]
