import Glibc
import PinVaultDoor
import PinVaultSystem

/// New connections: who may come in, and how many.
extension EventLoop {
    mutating func acceptAll(from door: Int) {
        let listener = server.doors[door].listener
        while !stopping {
            let fd: Int32
            switch listener.accept() {
            case .accepted(let accepted):
                fd = accepted
            case .none:
                return
            case .failed(let code):
                // Out of descriptors or memory: the listener stays readable, so stop
                // watching it for a moment instead of spinning on it.
                pauseAccepting(because: code)
                return
            }
            let peer: Peer
            do {
                peer = try Peer.of(socket: fd, adminGroup: server.limits.adminGroup)
            } catch {
                refusals.note("unreadable peer credentials")
                Glibc.close(fd)
                continue
            }
            if let refusal = admissionRefusal(for: peer) {
                refusals.note(refusal)
                Glibc.close(fd)
                continue
            }
            admit(fd: fd, peer: peer, door: door)
        }
    }

    /// Serves the connected socket `fd` of `peer` through `door`'s handler. Nil when
    /// no buffer could be had for it: `fd` is closed then.
    @discardableResult
    mutating func admit(fd: Int32, peer: Peer, door: Int) -> ConnectionID? {
        let connection: Connection
        do {
            connection = try Connection(
                id: nextConnectionID, fd: fd, peer: peer, door: door,
                framing: server.doors[door].handler.makeFraming(), now: MonotonicClock.milliseconds(),
                deliver: replyRoute(for: nextConnectionID)
            )
        } catch {
            refusals.note("no secret memory for its buffer")
            Glibc.close(fd)
            return nil
        }
        nextConnectionID += 1
        connections[connection.id] = connection
        connectionShares.take(1, uid: peer.uid)
        server.stats.connectionOpened()
        if let pushing = server.doors[door].handler as? any PushingHandler {
            pushing.connectionOpened(
                connection.id, peer: peer, outlet: ConnectionOutlet(connection: connection.id, push: pushRoute(for: connection.id))
            )
        }
        connection.withState { updateInterest(connection, &$0) }
        return connection.id
    }

    private mutating func pauseAccepting(because code: Int32) {
        guard acceptPausedUntil == nil else { return }
        for door in server.doors { server.epoll.remove(door.listener.fd) }
        acceptPausedUntil = MonotonicClock.milliseconds() + 100
        refusals.note("accept failed: \(SystemError(call: "accept", errno: code))")
    }

    mutating func resumeAcceptingIfDue(now: Int64) {
        guard let until = acceptPausedUntil, now >= until, !stopping else { return }
        acceptPausedUntil = nil
        for (index, door) in server.doors.enumerated() {
            do {
                try server.epoll.add(door.listener.fd, events: .epollIn, token: UInt64(index))
            } catch {
                server.logger.error("cannot watch the listening socket again: \(error)")
            }
        }
    }

    private func admissionRefusal(for peer: Peer) -> String? {
        let limits = server.limits
        if !limits.allowedGroups.isEmpty && !peer.isAdmin && !peer.isMember(ofAny: limits.allowedGroups) {
            return "not in access.allowed_groups"
        }
        switch connectionShares.refusal(taking: 1, uid: peer.uid, isAdmin: peer.isAdmin) {
        case nil:
            return nil
        case .perUid:
            return "server.max_connections_per_uid reached"
        case .full:
            return "server.max_connections reached"
        case .keptForAdmins:
            return "server.max_connections reached for non-admins (the last \(limits.adminReservedConnections) are kept for admins)"
        case .keptForNewcomers:
            return "server.max_connections nearly reached: the last \(limits.connectionShares.newcomerReserve) for others "
                + "are kept for uids holding fewer than \(ServerLimits.newcomerConnections) connections"
        }
    }
}
