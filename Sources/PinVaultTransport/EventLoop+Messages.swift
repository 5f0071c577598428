import Glibc
import PinVaultCrypto
import PinVaultDoor
import PinVaultSystem

/// Reading, handing messages over, writing replies, closing. Each step takes the
/// connection's state `inout`: the caller reached it once (`Connection.withState`).
extension EventLoop {
    mutating func handleEvents(_ flags: UInt32, on connection: Connection) {
        connection.withState { state in
            if flags & .epollErr != 0 {
                close(connection, &state, reason: nil)
                return
            }
            if flags & .epollOut != 0 && state.flush(to: connection.fd) == .failed {
                close(connection, &state, reason: nil)
                return
            }
            if flags & (.epollIn | .epollRdHup | .epollHup) != 0 && !state.inputClosed {
                let peer = connection.peer
                reading: for _ in 0..<16 {
                    // A growth of the buffer is granted within the uid's share of the
                    // locked input memory, and taken once made.
                    let grown = state.input.grownBytes
                    let result = state.input.read(from: connection.fd) { bytes in
                        lockedInput.refusal(taking: bytes, uid: peer.uid, isAdmin: peer.isAdmin) == nil
                    }
                    lockedInput.take(state.input.grownBytes - grown, uid: peer.uid)
                    switch result {
                    case .received:
                        // A read that left free space took all the socket held; another
                        // would only say EAGAIN (level-triggered: anything later wakes us).
                        if state.input.hasFreeSpace { break reading }
                    case .noRoom:
                        // A message this large does not fit the locked memory left to
                        // this uid now: the connection goes, not the limit.
                        let reason = "a message larger than the locked input memory left to its uid"
                        refusals.note(reason)
                        close(connection, &state, reason: reason)
                        return
                    case .wouldBlock, .full:
                        break reading
                    case .endOfStream:
                        // What the peer sent before its EOF is still answered.
                        state.inputClosed = true
                        break reading
                    case .failed:
                        close(connection, &state, reason: nil)
                        return
                    }
                }
            }
            if flags & .epollHup != 0 {
                // Nobody reads the replies any more: a message waiting for one is
                // cancelled (a PIN check that has not begun never counts).
                if state.hasPendingOutput || state.inFlight.map({ !$0.isOneway }) == true {
                    close(connection, &state, reason: nil)
                    return
                }
                state.peerGone = true
            }
            processFrames(connection, &state)
        }
    }

    /// Hands each complete message to the connection's handler in turn, while the
    /// connection is free for it, and writes the replies of all those answered at once
    /// (GetPolicy, a refusal, a signature) together, with one `send` at the end: a
    /// wakeup that brought many pipelined calls costs one write, not one per call. A
    /// message that goes to a pool ends the run; its reply comes through
    /// `deliverCompletions`, which runs this again.
    private mutating func processFrames(_ connection: Connection, _ state: inout ConnectionState) {
        guard connections[connection.id] != nil else { return }
        if let request = state.closeOnceWritten {
            guard write(connection, &state) else { return }
            if state.outputBlocked {
                updateInterest(connection, &state)
            } else {
                close(connection, &state, reason: request.reason)
            }
            return
        }
        let handler = server.doors[connection.door].handler
        frames: while !stopping && state.inFlight == nil && !state.outputBlocked {
            if state.output.count >= ConnectionState.batchBytes {
                // Enough gathered: write it before answering more (and stop while the
                // peer does not read).
                guard write(connection, &state) else { return }
                continue
            }
            let range: Range<Int>
            switch state.input.nextFrame() {
            case .frame(let frame):
                range = frame
            case .violation(let reason):
                // The replies to the calls before it go first, as they would have
                // without gathering; then the connection closes.
                guard write(connection, &state) else { return }
                if state.outputBlocked { break frames }
                close(connection, &state, reason: reason)
                return
            case .needMore:
                guard write(connection, &state) else { return }
                if (state.inputClosed || state.peerGone) && !state.outputBlocked {
                    // Everything the peer sent has been answered and written.
                    close(connection, &state, reason: nil)
                    return
                }
                updateInterest(connection, &state)
                return
            }
            // A departed peer's messages run only if they want no reply (`ReplyRoute`).
            let route = ReplyRoute(
                peer: connection.peer, connection: connection.id, peerHasLeft: state.peerGone,
                reply: state.reply, deliver: connection.deliver
            )
            state.inFlight = route
            // Counted before it is handled, so that GetStats counts itself.
            server.stats.messageReceived()
            server.backlog.set(othersWaiting: eventsLeft > 0 || state.input.count > range.upperBound)
            let disposition = state.input.withFrame(range) { handler.handle(message: $0, route: route) }
            lockedInput.give(state.input.consumeFrame(), uid: connection.peer.uid)
            if case .close(let reason) = disposition {
                // The replies to the messages before it go first, as they would have
                // without gathering; then the connection closes.
                state.inFlight = nil
                route.cancel()
                state.closeOnceWritten = .init(reason: reason)
                processFrames(connection, &state)
                return
            }
            // A message answered on the spot joins the replies to write; the epoll
            // interest stays as it is and the next pipelined frame starts at once.
            if server.completions.take(connection: connection.id) != nil {
                complete(&state, now: MonotonicClock.milliseconds())
            }
        }
        guard write(connection, &state) else { return }
        updateInterest(connection, &state)
    }

    /// Ends the connection's message in flight, whose reply is in `state.reply`: queues
    /// it behind the replies waiting to be written, and frees the connection for its
    /// next message. The caller writes (`write`).
    private func complete(_ state: inout ConnectionState, now: Int64) {
        guard state.inFlight != nil else { return }
        state.inFlight = nil
        state.lastProgress = now
        state.enqueueReply()
    }

    /// Writes the replies waiting, as far as the socket takes them. False when the write
    /// failed and the connection is closed.
    private mutating func write(_ connection: Connection, _ state: inout ConnectionState) -> Bool {
        guard state.hasPendingOutput, !state.outputBlocked else { return true }
        if state.flush(to: connection.fd) == .failed {
            close(connection, &state, reason: nil)
            return false
        }
        return true
    }

    /// How the messages of connection `id` hand their replies back to the loop.
    func replyRoute(for id: ConnectionID) -> @Sendable (ReplyBuffer) -> Void {
        let loop = loopThread
        return { [completions = server.completions, wakeup = server.wakeup] reply in
            completions.push(connection: id, reply: reply)
            // Replies made on the loop itself are picked up after the current event;
            // only other threads need to wake it.
            if pthread_equal(pthread_self(), loop) == 0 {
                wakeup.signal()
            }
        }
    }

    mutating func deliverCompletions() {
        while true {
            let batch = server.completions.takeAll()
            if batch.isEmpty { return }
            let now = MonotonicClock.milliseconds()
            for (index, (id, _)) in batch.enumerated() {
                // A request read after this reply has the rest of the batch, and any
                // replies finished since, waiting behind it.
                eventsLeft = batch.count - index - 1 + (server.completions.isEmpty ? 0 : 1)
                defer { eventsLeft = 0 }
                // A reply nobody waits for is dropped, and ReplyBuffer zeroes it.
                guard let connection = connections[id] else { continue }
                connection.withState { state in
                    guard state.inFlight != nil else { return }
                    complete(&state, now: now)
                    processFrames(connection, &state)
                }
            }
        }
    }

    /// How a pushing door writes to connection `id` outside a reply (`ConnectionOutlet`).
    func pushRoute(for id: ConnectionID) -> @Sendable (ReplyBuffer) -> Void {
        let loop = loopThread
        return { [pushes = server.pushes, wakeup = server.wakeup] bytes in
            pushes.push(connection: id, reply: bytes)
            if pthread_equal(pthread_self(), loop) == 0 {
                wakeup.signal()
            }
        }
    }

    /// Writes what pushing doors sent outside a reply, behind the replies already queued.
    mutating func deliverPushes() {
        // Only a pushing door pushes.
        guard !server.pushingDoors.isEmpty else { return }
        while true {
            let batch = server.pushes.takeAll()
            if batch.isEmpty { return }
            for (id, bytes) in batch {
                // Bytes for a connection that closed are dropped; the buffer zeroes them.
                guard let connection = connections[id] else {
                    bytes.zero()
                    continue
                }
                connection.withState { state in
                    guard state.closeOnceWritten == nil else { return bytes.zero() }
                    state.enqueuePush(bytes)
                    guard write(connection, &state) else { return }
                    updateInterest(connection, &state)
                }
            }
        }
    }

    /// Registers the events the loop now wants of the connection; closes it when epoll
    /// refuses.
    mutating func updateInterest(_ connection: Connection, _ state: inout ConnectionState) {
        let epoll = server.epoll
        if state.peerGone {
            // EPOLLHUP is reported whatever the interest, so leave the set for good
            // rather than wake the loop until the last oneway message is done.
            if state.registeredEvents != nil {
                epoll.remove(connection.fd)
                state.registeredEvents = nil
            }
            return
        }
        // Level-triggered: EPOLLIN and EPOLLRDHUP are asked for only while the loop
        // will read, or a half-closed peer with a message in flight (or a full buffer)
        // would wake every wait. A full close still reports EPOLLHUP, always.
        var wanted: UInt32 = 0
        if state.hasPendingOutput {
            wanted = .epollOut
        } else if state.inFlight == nil && !state.input.isFull && !stopping && !state.inputClosed {
            wanted = .epollIn | .epollRdHup
        }
        guard wanted != state.registeredEvents else { return }
        do {
            if state.registeredEvents == nil {
                try epoll.add(connection.fd, events: wanted, token: connection.id)
            } else {
                try epoll.modify(connection.fd, events: wanted, token: connection.id)
            }
            state.registeredEvents = wanted
        } catch {
            server.logger.error("epoll: \(error)")
            close(connection, &state, reason: nil)
        }
    }

    /// Closes the connections idle for `idle_timeout_seconds`, except those whose door
    /// says they hold what ends with them (a PKCS#11 module's login: an unlock session
    /// bound to its connection), which `max_connections_per_uid` bounds instead.
    mutating func closeIdleConnections(now: Int64) {
        let limit = Int64(server.limits.idleTimeoutSeconds) * 1000
        for connection in Array(connections.values) {
            let door = server.doors[connection.door].handler
            connection.withState { state in
                if state.inFlight == nil && now - state.lastProgress > limit && !door.keepsAlive(connection.id) {
                    close(connection, &state, reason: "idle for server.idle_timeout_seconds")
                }
            }
        }
    }

    mutating func close(_ connection: Connection, _ state: inout ConnectionState, reason: String?) {
        guard connections.removeValue(forKey: connection.id) != nil else { return }
        if let reason {
            server.logger.debug("closing connection", metadata: [
                "uid": "\(connection.peer.uid)", "pid": "\(connection.peer.pid)", "reason": "\(reason)",
            ])
        }
        server.epoll.remove(connection.fd)
        lockedInput.give(state.input.grownBytes, uid: connection.peer.uid)
        state.close()
        Glibc.close(connection.fd)
        connectionShares.give(1, uid: connection.peer.uid)
        server.stats.connectionClosed()
        server.doors[connection.door].handler.connectionClosed(connection.id, peer: connection.peer)
    }
}
