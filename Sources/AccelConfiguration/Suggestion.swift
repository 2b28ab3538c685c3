// SPDX-License-Identifier: Apache-2.0

/// "; did you mean 'threshold'?" when a close name exists.
func suggestion(_ name: String, among names: [String]) -> String {
    let scored = names.map { ($0, editDistance(name, $0)) }.min { $0.1 < $1.1 }
    guard let (best, distance) = scored, distance <= max(2, name.count / 3) else { return "" }
    return "; did you mean '\(best)'?"
}

func editDistance(_ a: String, _ b: String) -> Int {
    let a = Array(a), b = Array(b)
    var row = Array(0...b.count)
    for i in 1...max(a.count, 1) where !a.isEmpty {
        var previous = row[0]
        row[0] = i
        for j in 1...max(b.count, 1) where !b.isEmpty {
            let current = row[j]
            row[j] = min(row[j] + 1, row[j - 1] + 1, previous + (a[i - 1] == b[j - 1] ? 0 : 1))
            previous = current
        }
    }
    return a.isEmpty ? b.count : row[b.count]
}

extension StringProtocol {
    func trimmingWhitespace() -> String {
        let isSpace: (Character) -> Bool = { $0 == " " || $0 == "\t" || $0 == "\r" }
        return String(self.drop(while: isSpace).reversed().drop(while: isSpace).reversed())
    }
}
