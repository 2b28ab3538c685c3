// SPDX-License-Identifier: Apache-2.0
/// Which Host headers and Origins the gateway answers. A page on another
/// site can make a browser on the board's network send requests here; with
/// DNS rebinding they even carry that site's name as Host. Only loopback
/// names and the configured names are answered, and WebSocket upgrades are
/// taken only from pages served under those names (or from programs that
/// send no Origin at all, which browsers always do).
public struct HostPolicy: Sendable {
    /// Lower-case names besides loopback (`[gateway] server-names`).
    public let names: Set<String>

    public init(names: [String]) { self.names = Set(names.map { $0.lowercased() }) }

    /// Whether a Host header's value (name or address, with or without a
    /// port) is one of ours.
    public func allowsHost(_ header: String) -> Bool {
        guard let name = HostPolicy.name(ofHost: header) else { return false }
        return HostPolicy.isLoopback(name) || names.contains(name)
    }

    /// Whether an Origin header may open a WebSocket: absent (not a
    /// browser), or http(s) on an allowed host. "null" (a sandboxed or
    /// file: page) is refused.
    public func allowsOrigin(_ header: String?) -> Bool {
        guard let header else { return true }
        let lower = header.lowercased()
        for scheme in ["http://", "https://"] where lower.hasPrefix(scheme) {
            let rest = lower.dropFirst(scheme.count)
            guard !rest.contains("/") else { return false }
            return allowsHost(String(rest))
        }
        return false
    }

    /// The host part of "name", "name:port", "[v6]" or "[v6]:port",
    /// lower-cased; nil when malformed.
    static func name(ofHost header: String) -> String? {
        let value = header.lowercased()
        if value.hasPrefix("[") {
            guard let close = value.firstIndex(of: "]") else { return nil }
            let after = value[value.index(after: close)...]
            guard after.isEmpty || (after.hasPrefix(":") && UInt16(after.dropFirst()) != nil) else { return nil }
            return String(value[value.index(after: value.startIndex)..<close])
        }
        let parts = value.split(separator: ":", omittingEmptySubsequences: false)
        guard (parts.count == 1 || (parts.count == 2 && UInt16(parts[1]) != nil)), let name = parts.first, !name.isEmpty,
              name.allSatisfy({ $0.isLetter || $0.isNumber || $0 == "." || $0 == "-" }) else { return nil }
        return name.hasSuffix(".") ? String(name.dropLast()) : String(name)
    }

    static func isLoopback(_ name: String) -> Bool {
        if name == "localhost" || name.hasSuffix(".localhost") || name == "::1" { return true }
        let octets = name.split(separator: ".", omittingEmptySubsequences: false)
        return octets.count == 4 && octets[0] == "127" && octets.allSatisfy { UInt8($0) != nil }
    }
}
