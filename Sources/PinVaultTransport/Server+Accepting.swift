import Glibc
import PinVaultSystem

/// New connections: who may come in, and how many.
extension Server {
    func acceptAll(from door: Int) {
        let listener = doors[door].listener
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
                peer = try Peer.of(socket: fd, adminGroup: limits.adminGroup)
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
            do {
                let connection = try Connection(
                    id: nextConnectionID, fd: fd, peer: peer, door: door,
                    framing: doors[door].handler.makeFraming(), now: MonotonicClock.milliseconds(),
                    deliver: replyRoute(for: nextConnectionID)
                )
                nextConnectionID += 1
                connections[connection.id] = connection
                perUid[peer.uid, default: 0] += 1
                stats.connectionOpened()
                updateInterest(connection)
            } catch {
                refusals.note("no secret memory for its buffer")
                Glibc.close(fd)
            }
        }
    }

    private func pauseAccepting(because code: Int32) {
        guard acceptPausedUntil == nil else { return }
        for door in doors { epoll.remove(door.listener.fd) }
        acceptPausedUntil = MonotonicClock.milliseconds() + 100
        refusals.note("accept failed: \(SystemError(call: "accept", errno: code))")
    }

    func resumeAcceptingIfDue(now: Int64) {
        guard let until = acceptPausedUntil, now >= until, !stopping else { return }
        acceptPausedUntil = nil
        for (index, door) in doors.enumerated() {
            do {
                try epoll.add(door.listener.fd, events: .epollIn, token: UInt64(index))
            } catch {
                logger.error("cannot watch the listening socket again: \(error)")
            }
        }
    }

    private func admissionRefusal(for peer: Peer) -> String? {
        if !limits.allowedGroups.isEmpty && !peer.isAdmin && !peer.isMember(ofAny: limits.allowedGroups) {
            return "not in access.allowed_groups"
        }
        if connections.count >= limits.maxConnections {
            return "server.max_connections reached"
        }
        if !peer.isAdmin && connections.count >= limits.maxConnections - limits.adminReservedConnections {
            return "server.max_connections reached for non-admins (the last \(limits.adminReservedConnections) are kept for admins)"
        }
        if perUid[peer.uid, default: 0] >= limits.maxConnectionsPerUid {
            return "server.max_connections_per_uid reached"
        }
        return nil
    }
}
