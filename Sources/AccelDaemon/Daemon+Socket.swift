// SPDX-License-Identifier: Apache-2.0
#if canImport(Glibc)
import Glibc
#endif
import AccelConfiguration

// The socket file: the one systemd passed, or one acceld makes with its
// mode and group, after removing a stale one.
extension Daemon {
    /// The socket systemd passed, or one at [socket] path with its mode and
    /// group.
    func listeningSocket() throws -> Int32 {
        let socket = options.configuration.socket
        if let fd = SocketActivation.listeningDescriptors(environment: environment).first {
            serverDescription = "the socket systemd passed (fd \(fd))"
            return fd
        }
        let path = socket.path
        try prepareSocketPath(path)
        let fd: Int32
        do {
            fd = try Listener.listen(path: path) { try give($0, mode: socket.mode, group: socket.group) }
        } catch let error as StartError {
            throw error
        } catch {
            throw StartError(description: "cannot listen on \(path): \(error); pass --socket PATH or set [socket] path", exitCode: 73)
        }
        ownedSocketPath = path
        serverDescription = path
        return fd
    }

    /// Gives the bound socket file its [socket] mode and group, before it
    /// listens (the umask, which is the whole process's, is left alone).
    private func give(_ path: String, mode: UInt32, group: String) throws {
        if chmod(path, mode_t(mode)) != 0 {
            throw StartError(description: "cannot set \(path)'s mode to \(String(mode, radix: 8)): \(String(cString: strerror(errno)))", exitCode: 77)
        }
        guard !group.isEmpty else { return }
        guard let entry = getgrnam(group) else {
            throw StartError(description: "[socket] group: there is no group '\(group)' on this system", exitCode: 78)
        }
        if chown(path, uid_t.max, entry.pointee.gr_gid) != 0 {
            throw StartError(description: "cannot give \(path) to group \(group): \(String(cString: strerror(errno)))", exitCode: 77)
        }
    }

    /// Removes a stale socket file (nobody listening), refuses to steal a
    /// live one, and creates the directory if it is missing.
    func prepareSocketPath(_ path: String) throws {
        let directory = String(path[..<(path.lastIndex(of: "/") ?? path.startIndex)])
        var info = stat()
        if !directory.isEmpty, mkdir(directory, 0o755) != 0, errno == ENOENT {
            // Its folder's own folder is missing: say which, not the bind's ENOENT.
            throw StartError(description: "cannot listen on \(path): the folder \(directory) cannot be made, as the one it belongs in does not exist (acceld makes the socket's own folder, /run/acceld by default, and no more): create it (mkdir -p \(directory)) or choose a socket in a folder that exists", exitCode: 73)
        }
        guard lstat(path, &info) == 0 else { return }
        guard info.st_mode & S_IFMT == S_IFSOCK else {
            throw StartError(description: "\(path) exists and is not a socket: move it away or choose another --socket path", exitCode: 73)
        }
        if socketAnswers(path) {
            throw StartError(description: "another acceld is already listening on \(path): stop it first (systemctl stop acceld) or choose another --socket path", exitCode: 75)
        }
        unlink(path)
    }

    func socketAnswers(_ path: String) -> Bool {
        let fd = Glibc.socket(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { return false }
        defer { close(fd) }
        return Listener.withSocketAddress(path) { connect(fd, $0, $1) == 0 }
    }
}
