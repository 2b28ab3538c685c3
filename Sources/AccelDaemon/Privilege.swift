// SPDX-License-Identifier: Apache-2.0
#if canImport(Glibc)
import Glibc
#endif

/// Who may change the device: root, the daemon's own user, and members of
/// the privileged group (primary or supplementary, as the group database
/// says).
public struct Privilege: Sendable {
    public let daemonUID: UInt32
    public let groupID: UInt32?

    public struct UnknownGroup: Error, CustomStringConvertible {
        public let name: String
        public var description: String { "[daemon] privileged-group: there is no group '\(name)' on this system (see /etc/group)" }
    }

    public init(groupName: String) throws {
        daemonUID = geteuid()
        if groupName.isEmpty {
            groupID = nil
        } else if let group = getgrnam(groupName) {
            groupID = group.pointee.gr_gid
        } else {
            throw UnknownGroup(name: groupName)
        }
    }

    public func allows(_ peer: PeerCredentials) -> Bool {
        if peer.uid == 0 || peer.uid == daemonUID { return true }
        guard let groupID else { return false }
        if peer.gid == groupID { return true }
        guard let user = getpwuid(peer.uid) else { return false }
        var count: Int32 = 64
        var groups = [gid_t](repeating: 0, count: 64)
        if getgrouplist(user.pointee.pw_name, peer.gid, &groups, &count) < 0 { return false }
        return groups.prefix(Int(count)).contains(groupID)
    }
}
