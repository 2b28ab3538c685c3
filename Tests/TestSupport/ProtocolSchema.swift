// SPDX-License-Identifier: Apache-2.0
import AccelProtocol
import Foundation

/// docs/protocol.schema.json, the protocol's one description, as the Swift
/// tests read it: a message or request is checked field by field against
/// its class's definition (every field it has is one the class lists, of
/// the listed JSON type or value; every required field is there; nested
/// objects and arrays likewise). The Python tests validate the same
/// documents with python3-jsonschema, which also checks the rest of the
/// schema (dependent fields, bounds); this is the part that catches an
/// encoder drifting from the description.
public struct ProtocolSchema {
    public enum Side: String { case message, request }

    private let defs: [String: JSONValue]
    /// The version the description is of (`x-acceld-protocol`).
    public let version: Int

    public init(path: String = repositoryRoot + "/docs/protocol.schema.json") throws {
        let root = try JSONValue(parsing: Array(try Data(contentsOf: URL(fileURLWithPath: path))))
        defs = root["$defs"]?.object ?? [:]
        version = Int(root["x-acceld-protocol"]?.number ?? 0)
    }

    /// The class names one side may send.
    public func classNames(_ side: Side) -> Set<String> {
        Set(alternatives(of: side).flatMap { classes(of: $0) })
    }

    /// What is wrong with `line` as a message (or request) of its class;
    /// empty when it matches the description.
    public func problems(in line: String, side: Side) -> [String] {
        guard let value = try? JSONValue(parsing: Array(line.utf8)), let name = value["class"]?.string else {
            return ["not a JSON object with a class: \(line.prefix(80))"]
        }
        guard let definition = alternatives(of: side).first(where: { classes(of: $0).contains(name) }) else {
            return ["\(side.rawValue) class \"\(name)\" is not in the description"]
        }
        return problems(value, definition, name)
    }

    // MARK: Reading the description

    private func resolve(_ schema: JSONValue) -> JSONValue {
        guard let reference = schema["$ref"]?.string, reference.hasPrefix("#/$defs/"),
              let target = defs[String(reference.dropFirst(8))] else { return schema }
        return resolve(target)
    }

    private func alternatives(of side: Side) -> [JSONValue] {
        (defs[side.rawValue]?["oneOf"]?.array ?? []).map(resolve)
    }

    /// The properties and required fields of an object schema, through its
    /// `$ref` and `allOf`; `closed` when no other field is allowed.
    private func shape(_ schema: JSONValue) -> (properties: [String: JSONValue], required: Set<String>, closed: Bool) {
        var properties = schema["properties"]?.object ?? [:]
        var required = Set((schema["required"]?.array ?? []).compactMap(\.string))
        let open = schema["additionalProperties"].map { $0 != .bool(false) } ?? true
        var closed = !open || schema["unevaluatedProperties"] == .bool(false)
        for part in (schema["allOf"]?.array ?? []) + (schema["$ref"] != nil ? [resolve(schema)] : []) {
            let inner = shape(part)
            properties.merge(inner.properties) { mine, _ in mine }
            required.formUnion(inner.required)
            closed = closed || inner.closed
        }
        return (properties, required, closed)
    }

    private func classes(of schema: JSONValue) -> [String] {
        guard let name = shape(schema).properties["class"] else { return [] }
        return name["const"]?.string.map { [$0] } ?? (name["enum"]?.array ?? []).compactMap(\.string)
    }

    private func problems(_ value: JSONValue, _ schema: JSONValue, _ path: String) -> [String] {
        let schema = resolve(schema)
        if let options = schema["oneOf"]?.array ?? schema["anyOf"]?.array, schema["properties"] == nil {
            return options.contains { problems(value, $0, path).isEmpty } ? [] : ["\(path): \(value.jsonText) matches none of its forms"]
        }
        if let constant = schema["const"], constant != value { return ["\(path): \(value.jsonText), the description says \(constant.jsonText)"] }
        if let values = schema["enum"]?.array, !values.contains(value) { return ["\(path): \(value.jsonText) is not one of \(JSONValue.array(values).jsonText)"] }
        if let type = schema["type"], !(type.array ?? [type]).contains(where: { value.isOf(type: $0.string ?? "") }) {
            return ["\(path): \(value.jsonText) is not of type \(type.jsonText)"]
        }
        switch value {
        case .array(let items):
            guard let item = schema["items"] else { return [] }
            return items.enumerated().flatMap { problems($1, item, "\(path)[\($0)]") }
        case .object(let fields):
            let shape = shape(schema)
            guard !shape.properties.isEmpty else { return [] }
            var found = shape.required.subtracting(fields.keys).sorted().map { "\(path): the required field \"\($0)\" is missing" }
            for (key, field) in fields.sorted(by: { $0.key < $1.key }) {
                if let property = shape.properties[key] {
                    found += problems(field, property, "\(path).\(key)")
                } else if shape.closed {
                    found.append("\(path): the field \"\(key)\" is not in the description")
                }
            }
            return found
        default:
            return []
        }
    }
}

extension JSONValue {
    subscript(key: String) -> JSONValue? { object?[key] }

    func isOf(type: String) -> Bool {
        switch (type, self) {
        case ("null", .null), ("boolean", .bool), ("number", .number), ("string", .string), ("array", .array), ("object", .object): true
        case ("integer", .number(let number)): number.rounded() == number
        default: false
        }
    }
}
