// SPDX-License-Identifier: Apache-2.0
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// RFC 8259 JSON into `JSONValue`, in one pass over the bytes. It took the
/// place of FoundationEssentials' JSONDecoder decoding `JSONValue` as a
/// Decodable, which cost acceld-ros2 47 % of its CPU at 416 Hz (perf): a
/// line went through a generic container for every value.
struct JSONParser {
    struct Failure: Error, Equatable {
        let offset: Int
        let reason: String
    }

    /// As deep as JSONDecoder allows; deeper input is refused, never recursed into.
    static let maximumDepth = 512

    private let bytes: [UInt8]
    private var index = 0

    /// `bytes` with a NUL after them, so strtod stops at the end.
    private init(_ text: some Collection<UInt8>) {
        var bytes = Array(text)
        bytes.append(0)
        self.bytes = bytes
    }

    static func parse(_ text: some Collection<UInt8>) throws(Failure) -> JSONValue {
        var parser = JSONParser(text)
        let value = try parser.value(depth: 0)
        parser.skipWhitespace()
        guard parser.index == parser.bytes.count - 1 else { throw parser.failure("text after the value") }
        return value
    }

    private func failure(_ reason: String) -> Failure { Failure(offset: index, reason: reason) }

    private var current: UInt8 { bytes[index] }  // the NUL at the end stops every loop

    private mutating func skipWhitespace() {
        while current == 0x20 || current == 0x0A || current == 0x0D || current == 0x09 { index += 1 }
    }

    private mutating func expect(_ word: String) throws(Failure) {
        for byte in word.utf8 {
            guard current == byte else { throw failure("expected \(word)") }
            index += 1
        }
    }

    private mutating func value(depth: Int) throws(Failure) -> JSONValue {
        guard depth < JSONParser.maximumDepth else { throw failure("nested deeper than \(JSONParser.maximumDepth)") }
        skipWhitespace()
        switch current {
        case UInt8(ascii: "{"): return try object(depth: depth)
        case UInt8(ascii: "["): return try array(depth: depth)
        case UInt8(ascii: "\""): return .string(try string())
        case UInt8(ascii: "t"): try expect("true"); return .bool(true)
        case UInt8(ascii: "f"): try expect("false"); return .bool(false)
        case UInt8(ascii: "n"): try expect("null"); return .null
        case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"): return .number(try number())
        default: throw failure(index == bytes.count - 1 ? "the text ends where a value should be" : "no value here")
        }
    }

    private mutating func object(depth: Int) throws(Failure) -> JSONValue {
        index += 1
        var fields: [String: JSONValue] = [:]
        skipWhitespace()
        if current == UInt8(ascii: "}") { index += 1; return .object(fields) }
        while true {
            skipWhitespace()
            guard current == UInt8(ascii: "\"") else { throw failure("expected a key in quotes") }
            let key = try string()
            skipWhitespace()
            try expect(":")
            fields[key] = try value(depth: depth + 1)
            skipWhitespace()
            if current == UInt8(ascii: ",") { index += 1; continue }
            try expect("}")
            return .object(fields)
        }
    }

    private mutating func array(depth: Int) throws(Failure) -> JSONValue {
        index += 1
        var items: [JSONValue] = []
        skipWhitespace()
        if current == UInt8(ascii: "]") { index += 1; return .array(items) }
        while true {
            items.append(try value(depth: depth + 1))
            skipWhitespace()
            if current == UInt8(ascii: ",") { index += 1; continue }
            try expect("]")
            return .array(items)
        }
    }

    /// -?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?, checked before strtod reads it.
    private mutating func number() throws(Failure) -> Double {
        let start = index
        if current == UInt8(ascii: "-") { index += 1 }
        if current == UInt8(ascii: "0") { index += 1 } else { try digits() }
        if current == UInt8(ascii: ".") { index += 1; try digits() }
        if current == UInt8(ascii: "e") || current == UInt8(ascii: "E") {
            index += 1
            if current == UInt8(ascii: "+") || current == UInt8(ascii: "-") { index += 1 }
            try digits()
        }
        let value = bytes.withUnsafeBufferPointer { buffer in
            buffer.baseAddress!.advanced(by: start).withMemoryRebound(to: CChar.self, capacity: index - start + 1) { strtod($0, nil) }
        }
        guard value.isFinite else { throw Failure(offset: start, reason: "a number too large for a double") }
        return value
    }

    private mutating func digits() throws(Failure) {
        guard (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(current) else { throw failure("expected a digit") }
        while (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(current) { index += 1 }
    }

    private mutating func string() throws(Failure) -> String {
        index += 1
        var start = index
        var text: [UInt8] = []
        while true {
            switch current {
            case UInt8(ascii: "\""):
                text.append(contentsOf: bytes[start..<index])
                index += 1
                guard let string = String(validating: text, as: UTF8.self) else { throw failure("a string that is not UTF-8") }
                return string
            case UInt8(ascii: "\\"):
                text.append(contentsOf: bytes[start..<index])
                index += 1
                try escape(into: &text)
                start = index
            case 0 where index == bytes.count - 1:
                throw failure("a string with no closing quote")
            case 0..<0x20:
                throw failure("a control character in a string (escape it)")
            default:
                index += 1
            }
        }
    }

    private mutating func escape(into text: inout [UInt8]) throws(Failure) {
        let letter = current
        index += 1
        switch letter {
        case UInt8(ascii: "\""), UInt8(ascii: "\\"), UInt8(ascii: "/"): text.append(letter)
        case UInt8(ascii: "b"): text.append(0x08)
        case UInt8(ascii: "f"): text.append(0x0C)
        case UInt8(ascii: "n"): text.append(0x0A)
        case UInt8(ascii: "r"): text.append(0x0D)
        case UInt8(ascii: "t"): text.append(0x09)
        case UInt8(ascii: "u"):
            var scalar = try hex4()
            if (0xD800..<0xDC00).contains(scalar) {
                // A high surrogate: its low half must follow as \uDC00-\uDFFF.
                try expect("\\u")
                let low = try hex4()
                guard (0xDC00..<0xE000).contains(low) else { throw failure("a lone high surrogate in \\u escapes") }
                scalar = 0x10000 + (scalar - 0xD800) << 10 + (low - 0xDC00)
            }
            guard let unicode = Unicode.Scalar(scalar) else { throw failure("a lone low surrogate in \\u escapes") }
            text.append(contentsOf: String(Character(unicode)).utf8)
        default:
            throw failure("an unknown escape \\\(Character(Unicode.Scalar(letter)))")
        }
    }

    private mutating func hex4() throws(Failure) -> UInt32 {
        var value: UInt32 = 0
        for _ in 0..<4 {
            let digit: UInt32
            switch current {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): digit = UInt32(current - UInt8(ascii: "0"))
            case UInt8(ascii: "a")...UInt8(ascii: "f"): digit = UInt32(current - UInt8(ascii: "a") + 10)
            case UInt8(ascii: "A")...UInt8(ascii: "F"): digit = UInt32(current - UInt8(ascii: "A") + 10)
            default: throw failure("expected four hex digits after \\u")
            }
            value = value << 4 | digit
            index += 1
        }
        return value
    }
}
