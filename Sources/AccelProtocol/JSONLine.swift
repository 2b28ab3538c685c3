import AccelDriver

/// Builds one JSON object on one line, fields in the order written and
/// numbers with fixed decimals, so equal input gives byte-identical output.
public struct JSONLine {
    public private(set) var text: String
    private var first = true

    public init(class name: String) {
        text = "{\"class\":\""
        text.reserveCapacity(256)
        text += name
        text += "\""
        first = false
    }

    /// A nested object without a class.
    public init() { text = "{" }

    private mutating func key(_ name: String) {
        text += first ? "\"" : ",\""
        first = false
        text += name
        text += "\":"
    }

    public mutating func add(_ name: String, _ value: String) {
        key(name)
        text += JSONLine.quoted(value)
    }

    public mutating func add(_ name: String, _ value: Int) {
        key(name)
        text += String(value)
    }

    public mutating func add(_ name: String, _ value: UInt64) {
        key(name)
        text += String(value)
    }

    public mutating func add(_ name: String, _ value: Bool) {
        key(name)
        text += value ? "true" : "false"
    }

    public mutating func add(_ name: String, _ value: Double, decimals: Int) {
        key(name)
        text += value.isFinite ? fixed(value, decimals) : "null"
    }

    public mutating func add(_ name: String, _ v: Vector3, decimals: Int) {
        key(name)
        text += "["
        text += fixed(v.x, decimals)
        text += ","
        text += fixed(v.y, decimals)
        text += ","
        text += fixed(v.z, decimals)
        text += "]"
    }

    /// Inserts already-encoded JSON (an object or array built elsewhere).
    public mutating func addRaw(_ name: String, _ json: String) {
        key(name)
        text += json
    }

    public var line: String { text + "}" }

    /// A JSON array of strings.
    public static func array(_ strings: some Sequence<String>) -> String {
        "[" + strings.map(quoted).joined(separator: ",") + "]"
    }

    /// A JSON string literal with the escapes RFC 8259 requires.
    public static func quoted(_ s: String) -> String {
        var out = "\""
        for scalar in s.unicodeScalars {
            switch scalar {
            case "\"": out += "\\\""
            case "\\": out += "\\\\"
            case "\n": out += "\\n"
            case "\r": out += "\\r"
            case "\t": out += "\\t"
            case let c where c.value < 0x20:
                let hexDigits = String(c.value, radix: 16)
                out += "\\u" + String(repeating: "0", count: 4 - hexDigits.count) + hexDigits
            default: out.unicodeScalars.append(scalar)
            }
        }
        return out + "\""
    }
}
