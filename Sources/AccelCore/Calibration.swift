// SPDX-License-Identifier: Apache-2.0
/// Per-axis correction in the chip's own axes: g = (reading − offset) × scale.
/// Offsets come from a flat or six-position calibration (about ±40 mg of
/// zero-g offset is normal for this part); scales correct sensitivity error
/// (16.2..19.8 mg/digit around the nominal 18).
public struct Calibration: Sendable, Equatable, Codable {
    public var offset: Vector3
    public var scale: Vector3
    /// A six-axis part's gyroscope: its mean rate at rest, dps in the chip's
    /// axes, where the fusion's bias estimate starts. Nil: not measured (an
    /// older file, or a part without a gyroscope), the estimate starts at 0.
    public var gyroscopeOffset: Vector3?

    public init(offset: Vector3 = .zero, scale: Vector3 = Vector3(1, 1, 1), gyroscopeOffset: Vector3? = nil) {
        self.offset = offset
        self.scale = scale
        self.gyroscopeOffset = gyroscopeOffset
    }

    public static let identity = Calibration()

    public func apply(_ g: Vector3) -> Vector3 { (g - offset).scaled(by: scale) }
}

extension Vector3: Codable {
    public init(from decoder: Decoder) throws {
        var c = try decoder.unkeyedContainer()
        self.init(try c.decode(Double.self), try c.decode(Double.self), try c.decode(Double.self))
    }

    public func encode(to encoder: Encoder) throws {
        var c = encoder.unkeyedContainer()
        try c.encode(x)
        try c.encode(y)
        try c.encode(z)
    }
}

/// Rotates the chip's axes into the board's, in the IIO `mount_matrix`
/// convention: row i gives board axis i as a combination of chip axes, and
/// the text form is "x1, y1, z1; x2, y2, z2; x3, y3, z3".
public struct MountMatrix: Sendable, Equatable, CustomStringConvertible {
    public var rows: (Vector3, Vector3, Vector3)

    public init(_ r0: Vector3, _ r1: Vector3, _ r2: Vector3) { rows = (r0, r1, r2) }

    public static let identity = MountMatrix(Vector3(1, 0, 0), Vector3(0, 1, 0), Vector3(0, 0, 1))

    public static func == (a: MountMatrix, b: MountMatrix) -> Bool {
        a.rows.0 == b.rows.0 && a.rows.1 == b.rows.1 && a.rows.2 == b.rows.2
    }

    public func apply(_ v: Vector3) -> Vector3 { Vector3(rows.0.dot(v), rows.1.dot(v), rows.2.dot(v)) }

    public var description: String {
        [rows.0, rows.1, rows.2].map { r in [r.x, r.y, r.z].map { format($0) }.joined(separator: ", ") }
            .joined(separator: "; ")
    }

    private func format(_ v: Double) -> String {
        v == v.rounded() ? String(Int(v)) : String(v)
    }

    public struct ParseError: Error, CustomStringConvertible {
        public let text: String
        public let reason: String
        public var description: String {
            "mount matrix \"\(text)\": \(reason); expected three rows of three numbers, rows separated by ';', e.g. \"0, 1, 0; -1, 0, 0; 0, 0, 1\""
        }
    }

    /// Parses the IIO string form. Rejects anything that is not a proper
    /// rotation or reflection (rows of unit length, orthogonal), because a
    /// typo there would silently skew every reading.
    public init(parsing text: String) throws {
        let rowTexts = text.split(separator: ";", omittingEmptySubsequences: false)
        guard rowTexts.count == 3 else { throw ParseError(text: text, reason: "found \(rowTexts.count) rows") }
        var rows: [Vector3] = []
        for (index, rowText) in rowTexts.enumerated() {
            let cells = rowText.split(separator: ",", omittingEmptySubsequences: false)
                .map { $0.trimmingCharacters() }
            guard cells.count == 3 else {
                throw ParseError(text: text, reason: "row \(index + 1) has \(cells.count) numbers")
            }
            let values = try cells.map { cell -> Double in
                guard let v = Double(cell), v.isFinite else {
                    throw ParseError(text: text, reason: "\"\(cell)\" in row \(index + 1) is not a number")
                }
                return v
            }
            rows.append(Vector3(values[0], values[1], values[2]))
        }
        for (i, r) in rows.enumerated() where abs(r.magnitude - 1) > 1e-3 {
            throw ParseError(text: text, reason: "row \(i + 1) has length \(r.magnitude), not 1")
        }
        for (i, j) in [(0, 1), (0, 2), (1, 2)] where abs(rows[i].dot(rows[j])) > 1e-3 {
            throw ParseError(text: text, reason: "rows \(i + 1) and \(j + 1) are not perpendicular")
        }
        self.init(rows[0], rows[1], rows[2])
    }
}

extension Substring {
    /// Without spaces and tabs at either end (Foundation-free).
    public func trimmingCharacters() -> String {
        // On the UTF-8 view: every trace row passes here (the Character
        // view's reversals made it a fifth of reading a long recording).
        let blank: (UInt8) -> Bool = { $0 == UInt8(ascii: " ") || $0 == UInt8(ascii: "\t") }
        guard let first = utf8.firstIndex(where: { !blank($0) }), let last = utf8.lastIndex(where: { !blank($0) }) else { return "" }
        return String(self[first...last])
    }
}
