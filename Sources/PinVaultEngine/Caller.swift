/// Who asks: what a front door learned of its peer from the kernel (`SO_PEERCRED`,
/// the admin group), never what the peer claimed. The engine decides every
/// authorization question from this alone.
public struct Caller: Sendable, Equatable {
    public let uid: UInt32
    public let pid: Int32
    /// uid 0, or a member of `access.admin_group`.
    public let isAdmin: Bool

    public init(uid: UInt32, pid: Int32, isAdmin: Bool) {
        self.uid = uid
        self.pid = pid
        self.isAdmin = isAdmin
    }
}
