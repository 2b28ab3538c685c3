// SPDX-License-Identifier: Apache-2.0
import AccelCore


/// Builds one JSON object on one line, fields in the order written and
/// numbers with fixed decimals, so equal input gives byte-identical output.
/// It writes bytes, digits included, without intermediate Strings: replay
/// encodes a frame in well under a microsecond (docs/PERFORMANCE.md).
public struct JSONLine {
    public private(set) var bytes: [UInt8]

    public init(class name: String) {
        bytes = []
        bytes.reserveCapacity(224)
        bytes += #"{"class":""#.utf8
        bytes += name.utf8
        bytes.append(UInt8(ascii: "\""))
    }

    /// A nested object without a class.
    public init() {
        bytes = [UInt8(ascii: "{")]
    }

    /// Keys are literals: appended from static storage, no String work.
    private mutating func key(_ name: StaticString) {
        if bytes.count > 1 { bytes.append(UInt8(ascii: ",")) }
        bytes.append(UInt8(ascii: "\""))
        name.withUTF8Buffer { bytes.append(contentsOf: $0) }
        bytes.append(UInt8(ascii: "\""))
        bytes.append(UInt8(ascii: ":"))
    }


    public mutating func add(_ name: StaticString, _ value: String) {
        key(name)
        bytes += JSONLine.quoted(value).utf8
    }

    public mutating func add(_ name: StaticString, _ value: Int) {
        key(name)
        appendInteger(UInt64(value.magnitude), negative: value < 0)
    }

    public mutating func add(_ name: StaticString, _ value: UInt64) {
        key(name)
        appendInteger(value, negative: false)
    }

    public mutating func add(_ name: StaticString, _ value: Bool) {
        key(name)
        bytes += (value ? "true" : "false").utf8
    }

    public mutating func add(_ name: StaticString, _ value: Double, decimals: Int) {
        key(name)
        appendFixed(value, decimals)
    }

    public mutating func add(_ name: StaticString, _ v: Vector3, decimals: Int) {
        key(name)
        bytes.append(UInt8(ascii: "["))
        appendFixed(v.x, decimals)
        bytes.append(UInt8(ascii: ","))
        appendFixed(v.y, decimals)
        bytes.append(UInt8(ascii: ","))
        appendFixed(v.z, decimals)
        bytes.append(UInt8(ascii: "]"))
    }

    /// Inserts already-encoded JSON (an object or array built elsewhere).
    public mutating func addRaw(_ name: StaticString, _ json: String) {
        key(name)
        bytes += json.utf8
    }

    /// The same under a key known only at run time (escaped as JSON requires).
    public mutating func addRaw(key name: String, _ json: String) {
        if bytes.count > 1 { bytes.append(UInt8(ascii: ",")) }
        bytes += JSONLine.quoted(name).utf8
        bytes.append(UInt8(ascii: ":"))
        bytes += json.utf8
    }

    /// A number as a person writes it in a request: 10, not 10.000; 0.25;
    /// every digit it needs to read back exactly.
    public mutating func add(_ name: StaticString, number value: Double) {
        key(name)
        bytes += JSONLine.shortest(value).utf8
    }

    /// A vector the same way.
    public mutating func add(_ name: StaticString, numbers v: Vector3) {
        key(name)
        bytes += "[\(JSONLine.shortest(v.x)),\(JSONLine.shortest(v.y)),\(JSONLine.shortest(v.z))]".utf8
    }

    static func shortest(_ value: Double) -> String {
        value == value.rounded() && abs(value) < 1e15 ? String(Int64(value)) : String(value)
    }

    /// The finished object, as bytes without the newline.
    public var lineBytes: [UInt8] { bytes + [UInt8(ascii: "}")] }

    /// The same, reusing this buffer (no copy) for the hot paths.
    public consuming func finished() -> [UInt8] {
        bytes.append(UInt8(ascii: "}"))
        return bytes
    }

    public var line: String { String(decoding: lineBytes, as: UTF8.self) }

    private static let powers: [Double] = [1, 10, 100, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9]

    /// Like `fixed(_:_:)`, written straight into the buffer: the digits are
    /// composed right to left in a local buffer and appended at once.
    mutating func appendFixed(_ value: Double, _ decimals: Int) {
        let scaled = (abs(value) * JSONLine.powers[decimals]).rounded()
        guard value.isFinite, scaled < 9e15 else {
            bytes += (value.isFinite ? String(value) : "null").utf8
            return
        }
        var n = UInt64(scaled)
        let negative = value < 0 && n != 0
        var scratch: (UInt64, UInt64, UInt64, UInt64) = (0, 0, 0, 0)
        withUnsafeMutableBytes(of: &scratch) { raw in
            var i = raw.count
            var produced = 0
            repeat {
                if produced == decimals && decimals > 0 {
                    i -= 1
                    raw[i] = UInt8(ascii: ".")
                }
                i -= 1
                raw[i] = UInt8(ascii: "0") &+ UInt8(truncatingIfNeeded: n % 10)
                n /= 10
                produced += 1
            } while n > 0 || produced <= decimals
            if negative {
                i -= 1
                raw[i] = UInt8(ascii: "-")
            }
            bytes.append(contentsOf: UnsafeRawBufferPointer(rebasing: raw[i...]))
        }
    }

    private mutating func appendInteger(_ value: UInt64, negative: Bool) {
        if negative { bytes.append(UInt8(ascii: "-")) }
        bytes += String(value).utf8
    }

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
