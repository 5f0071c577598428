import Glibc
import PinVaultCrypto
import PinVaultSystem

/// Reading, handing messages over, writing replies, closing.
extension Server {
    func handleEvents(_ flags: UInt32, on connection: Connection) {
        if flags & .epollErr != 0 {
            close(connection, reason: nil)
            return
        }
        if flags & .epollOut != 0 {
            switch connection.flush() {
            case .failed:
                close(connection, reason: nil)
                return
            case .wouldBlock, .done:
                break
            }
        }
        if flags & (.epollIn | .epollRdHup | .epollHup) != 0 && !connection.inputClosed {
            reading: for _ in 0..<16 {
                switch connection.input.read(from: connection.fd) {
                case .received:
                    // A read that left free space took all the socket held; another
                    // would only say EAGAIN (level-triggered: anything later wakes us).
                    if connection.input.hasFreeSpace { break reading }
                    continue
                case .wouldBlock, .full:
                    break reading
                case .endOfStream:
                    // What the peer sent before its EOF is still answered.
                    connection.inputClosed = true
                    break reading
                case .failed:
                    close(connection, reason: nil)
                    return
                }
            }
        }
        if flags & .epollHup != 0 {
            // Nobody reads the replies any more: a message waiting for one is cancelled
            // (a PIN check that has not begun never counts).
            if connection.hasPendingOutput || connection.inFlight.map({ !$0.isOneway }) == true {
                close(connection, reason: nil)
                return
            }
            connection.peerGone = true
        }
        processFrames(connection)
    }

    /// Hands the next complete message to the connection's handler, while the
    /// connection is free for it.
    private func processFrames(_ connection: Connection) {
        guard connections[connection.id] != nil else { return }
        let handler = doors[connection.door].handler
        while !stopping && connection.inFlight == nil && !connection.hasPendingOutput {
            let range: Range<Int>
            switch connection.input.nextFrame() {
            case .frame(let frame):
                range = frame
            case .violation(let reason):
                close(connection, reason: reason)
                return
            case .needMore:
                if connection.inputClosed || connection.peerGone {
                    // Everything the peer sent has been answered.
                    close(connection, reason: nil)
                    return
                }
                updateInterest(connection)
                return
            }
            // A departed peer's messages run only if they want no reply (`ReplyRoute`).
            let route = ReplyRoute(
                peer: connection.peer, connection: connection.id, peerHasLeft: connection.peerGone,
                reply: connection.reply, deliver: connection.deliver
            )
            connection.inFlight = route
            // Counted before it is handled, so that GetStats counts itself.
            stats.messageReceived()
            let disposition = connection.input.withFrame(range) { handler.handle(message: $0, route: route) }
            connection.input.consumeFrame()
            if case .close(let reason) = disposition {
                close(connection, reason: reason)
                return
            }
            // A message answered on the spot (GetPolicy, a refusal) is written now, not
            // after a turn of the loop: the epoll interest stays as it is and the next
            // pipelined frame starts at once.
            if let reply = completions.take(connection: connection.id),
               !complete(connection, with: reply, now: MonotonicClock.milliseconds()) {
                return
            }
        }
        updateInterest(connection)
    }

    /// Ends the connection's message in flight with `reply`: writes it (when it holds
    /// anything) and frees the connection for its next message. False when the write
    /// failed and the connection is closed.
    private func complete(_ connection: Connection, with reply: ReplyBuffer, now: Int64) -> Bool {
        guard connection.inFlight != nil else { return true }
        connection.inFlight = nil
        connection.lastProgress = now
        if reply.count == 0 {
            connection.discard(reply: reply)
        } else {
            connection.enqueue(frame: reply)
            if connection.flush() == .failed {
                close(connection, reason: nil)
                return false
            }
        }
        return true
    }

    /// How the messages of connection `id` hand their replies back to the loop.
    func replyRoute(for id: ConnectionID) -> @Sendable (ReplyBuffer) -> Void {
        let loop = loopThread
        return { [completions, wakeup] reply in
            completions.push(connection: id, reply: reply)
            // Replies made on the loop itself are picked up after the current event;
            // only other threads need to wake it.
            if pthread_equal(pthread_self(), loop) == 0 {
                wakeup.signal()
            }
        }
    }

    func deliverCompletions() {
        while true {
            let batch = completions.takeAll()
            if batch.isEmpty { return }
            let now = MonotonicClock.milliseconds()
            for (id, reply) in batch {
                // A reply nobody waits for is dropped, and ReplyBuffer zeroes it.
                guard let connection = connections[id], connection.inFlight != nil,
                      complete(connection, with: reply, now: now) else { continue }
                processFrames(connection)
            }
        }
    }

    func updateInterest(_ connection: Connection) {
        if connection.peerGone {
            // EPOLLHUP is reported whatever the interest, so leave the set for good
            // rather than wake the loop until the last oneway message is done.
            if connection.registeredEvents != nil {
                epoll.remove(connection.fd)
                connection.registeredEvents = nil
            }
            return
        }
        // Level-triggered: EPOLLIN and EPOLLRDHUP are asked for only while the loop
        // will read, or a half-closed peer with a message in flight (or a full buffer)
        // would wake every wait. A full close still reports EPOLLHUP, always.
        var wanted: UInt32 = 0
        if connection.hasPendingOutput {
            wanted = .epollOut
        } else if connection.inFlight == nil && !connection.input.isFull && !stopping && !connection.inputClosed {
            wanted = .epollIn | .epollRdHup
        }
        guard wanted != connection.registeredEvents else { return }
        do {
            if connection.registeredEvents == nil {
                try epoll.add(connection.fd, events: wanted, token: connection.id)
            } else {
                try epoll.modify(connection.fd, events: wanted, token: connection.id)
            }
            connection.registeredEvents = wanted
        } catch {
            logger.error("epoll: \(error)")
            close(connection, reason: nil)
        }
    }

    func closeIdleConnections(now: Int64) {
        let limit = Int64(limits.idleTimeoutSeconds) * 1000
        for connection in connections.values where connection.inFlight == nil && now - connection.lastProgress > limit {
            close(connection, reason: "idle for server.idle_timeout_seconds")
        }
    }

    func close(_ connection: Connection, reason: String?) {
        guard connections.removeValue(forKey: connection.id) != nil else { return }
        if let reason {
            logger.debug("closing connection", metadata: ["uid": "\(connection.peer.uid)", "pid": "\(connection.peer.pid)", "reason": "\(reason)"])
        }
        epoll.remove(connection.fd)
        connection.close()
        if let count = perUid[connection.peer.uid] {
            perUid[connection.peer.uid] = count > 1 ? count - 1 : nil
        }
        stats.connectionClosed()
        doors[connection.door].handler.connectionClosed(connection.id, peer: connection.peer)
    }
}
