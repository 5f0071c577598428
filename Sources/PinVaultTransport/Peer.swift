import CPinVaultSystem
import Glibc
import PinVaultSystem

/// Who is on the other end of a connection, as the kernel says (`SO_PEERCRED`,
/// `SO_PEERGROUPS`) — never as the peer says.
public struct Peer: Sendable, Equatable {
    public let pid: Int32
    public let uid: UInt32
    public let gid: UInt32
    /// Supplementary groups at connect time.
    public let groups: [UInt32]
    /// uid 0, or a member of `access.admin_group`.
    public let isAdmin: Bool

    public init(pid: Int32, uid: UInt32, gid: UInt32, groups: [UInt32], isAdmin: Bool) {
        self.pid = pid
        self.uid = uid
        self.gid = gid
        self.groups = groups
        self.isAdmin = isAdmin
    }

    /// Reads the peer of a connected socket; `adminGroup` is the resolved admin gid.
    public static func of(socket fd: Int32, adminGroup: UInt32?) throws(SystemError) -> Peer {
        var pid: pid_t = 0
        var uid: uid_t = 0
        var gid: gid_t = 0
        guard CPinVaultSystem_peer_credentials(fd, &pid, &uid, &gid) == 0 else {
            throw SystemError.last("getsockopt(SO_PEERCRED)")
        }
        var groups = [gid_t](repeating: 0, count: 64)
        var count = Int32(groups.count)
        if CPinVaultSystem_peer_groups(fd, &groups, &count) != 0 {
            guard errno == ERANGE, count > 0, count <= 65536 else { throw SystemError.last("getsockopt(SO_PEERGROUPS)") }
            groups = [gid_t](repeating: 0, count: Int(count))
            guard CPinVaultSystem_peer_groups(fd, &groups, &count) == 0 else {
                throw SystemError.last("getsockopt(SO_PEERGROUPS)")
            }
        }
        let supplementary = Array(groups.prefix(Int(count)))
        let isAdmin = uid == 0 || adminGroup.map { gid == $0 || supplementary.contains($0) } ?? false
        return Peer(pid: pid, uid: uid, gid: gid, groups: supplementary, isAdmin: isAdmin)
    }

    /// True when the peer's primary or a supplementary group is in `gids`.
    public func isMember(ofAny gids: Set<UInt32>) -> Bool {
        gids.contains(gid) || groups.contains(where: gids.contains)
    }
}
