// SPDX-License-Identifier: Apache-2.0
#if canImport(FoundationEssentials)
import FoundationEssentials  // not all of Foundation: ICU's data would triple the static binary
#else
import Foundation
#endif

/// The live page's files, read once at start: every asset is served from
/// memory (no CDN, no disk access per request), and a path is only ever
/// looked up among these names, so no request can reach another file.
public struct WebAssets: Sendable {
    public struct Asset: Sendable {
        public let bytes: [UInt8]
        public let contentType: String
    }
    public let directory: String
    public let files: [String: Asset]

    public struct MissingError: Error, CustomStringConvertible {
        public let directory: String
        public var description: String {
            "the live page's files are not in \(directory) (no index.html there): install them (make install, or the Debian package), or point [gateway] web-root or --web-root at the checkout's Web/ directory"
        }
    }

    public init(directory: String) throws {
        self.directory = directory
        var files: [String: Asset] = [:]
        let names = (try? FileManager.default.contentsOfDirectory(atPath: directory)) ?? []
        for name in names where !name.hasPrefix(".") {
            guard let dot = name.lastIndex(of: "."), let type = WebAssets.types[String(name[name.index(after: dot)...])],
                  let data = FileManager.default.contents(atPath: directory + "/" + name) else { continue }
            files["/" + name] = Asset(bytes: Array(data), contentType: type)
        }
        guard files["/index.html"] != nil else { throw MissingError(directory: directory) }
        self.files = files
    }

    /// No page (only metrics or MQTT are on).
    public static let none = WebAssets()
    private init() {
        directory = ""
        files = [:]
    }

    public subscript(path: String) -> Asset? { files[path == "/" ? "/index.html" : path] }

    static let types = [
        "html": "text/html; charset=utf-8", "js": "text/javascript; charset=utf-8", "css": "text/css; charset=utf-8",
        "svg": "image/svg+xml", "png": "image/png", "ico": "image/x-icon", "json": "application/json",
    ]
}
