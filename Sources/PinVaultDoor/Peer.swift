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

    /// True when the peer's primary or a supplementary group is in `gids`.
    public func isMember(ofAny gids: Set<UInt32>) -> Bool {
        gids.contains(gid) || groups.contains(where: gids.contains)
    }
}
