import CPinVaultSystem
import Glibc
import PinVaultDoor
import PinVaultSystem

extension Peer {
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
}
