// SPDX-License-Identifier: Apache-2.0
import Testing

@testable import AccelProtocol

/// RFC 8259 as JSONValue: what parses, to what, and what is refused.
struct JSONParserTests {
    private func parse(_ text: String) throws -> JSONValue { try JSONValue(parsing: Array(text.utf8)) }

    @Test func valuesOfEveryKind() throws {
        #expect(try parse(#" {"a": [1, -2.5e3, 0.125, true, false, null], "b": {"c": ""}} "#)
                == .object(["a": .array([.number(1), .number(-2500), .number(0.125), .bool(true), .bool(false), .null]),
                            "b": .object(["c": .string("")])]))
        #expect(try parse("42") == .number(42))
        #expect(try parse(#""x""#) == .string("x"))
        #expect(try parse("[]") == .array([]) && parse("{}") == .object([:]))
    }

    @Test func numbersAsTheWireWritesThem() throws {
        for text in ["0.0001", "-0.0180", "1.0080", "3521.204118", "1e-7", "2E+2", "123456789012"] {
            #expect(try parse(text) == .number(Double(text)!), "\(text)")
        }
    }

    @Test func escapesAndUnicode() throws {
        #expect(try parse(#""a\"b\\c\/d\n\t\r\b\f""#) == .string("a\"b\\c/d\n\t\r\u{08}\u{0C}"))
        #expect(try parse(#""\u00e9\u20AC\ud83d\ude00""#) == .string("é€😀"))
        #expect(try parse("\"±2 g, 9.81 m/s²\"") == .string("±2 g, 9.81 m/s²"))
    }

    @Test(arguments: ["", " ", "{", "[1,]", "{\"a\":1,}", "{'a':1}", "01", "1.", ".5", "+1", "-", "1e", "NaN", "Infinity", "1e999",
                      "tru", "nul", "[1] x", "\"abc", "\"a\u{01}b\"", #""\x""#, #""\ud83d""#, #""\udc00""#, #""\u12G4""#, "{1:2}",
                      "[1 2]", "{\"a\" 1}"])
    func refused(text: String) {
        #expect(throws: (any Error).self, "\(text.debugDescription)") { try parse(text) }
    }

    @Test func invalidUTF8IsRefused() {
        #expect(throws: (any Error).self) { try JSONValue(parsing: [0x22, 0xC3, 0x28, 0x22]) }
    }

    @Test func nestingIsBounded() throws {
        let deep = String(repeating: "[", count: 600) + String(repeating: "]", count: 600)
        #expect(throws: (any Error).self) { try parse(deep) }
        let fine = String(repeating: "[", count: 500) + String(repeating: "]", count: 500)
        #expect(try parse(fine).array != nil)
    }

    @Test func aLaterKeyWins() throws {
        #expect(try parse(#"{"a":1,"a":2}"#) == .object(["a": .number(2)]))
    }
}
