import PinVaultCTAPHID
import PinVaultCrypto
import PinVaultDoor
import PinVaultSystem

/// The CTAPHID door: a stream of 64-byte reports each way (a HID report without its
/// report-id byte) per connection, each connection one virtual FIDO device
/// (`CTAPHIDDevice`), the authenticator behind it (`CTAPAuthenticator`) hearing whole CBOR
/// messages. It answers each report at once; what comes later (the authenticator's reply,
/// KEEPALIVEs, MSG_TIMEOUT) goes through the connection's outlet.
///
/// The uid and pid of every channel are the connection's peer's, as the kernel gave them.
public final class CTAPHIDDoor: PushingHandler {
    /// One connection's device and where to write to it.
    private struct Slot {
        var device: CTAPHIDDevice
        let outlet: ConnectionOutlet
        let peer: Peer
        /// When the connection was accepted (the device's power-up), on `clock`.
        let openedAt: Int64
    }

    private let authenticator: any CTAPAuthenticator
    private let limits: CTAPHIDLimits
    private let clock: @Sendable () -> Int64
    private let lock = ConditionLock()
    /// Guarded by `lock`: the connections, and those in a transaction (what `tick` visits).
    nonisolated(unsafe) private var slots: [ConnectionID: Slot] = [:]
    nonisolated(unsafe) private var busy: Set<ConnectionID> = []

    /// `clock` is monotonic milliseconds (the loop's own, in `tick`, for timers).
    public init(
        authenticator: any CTAPAuthenticator, limits: CTAPHIDLimits = CTAPHIDLimits(),
        clock: @escaping @Sendable () -> Int64 = MonotonicClock.milliseconds
    ) {
        self.authenticator = authenticator
        self.limits = limits
        self.clock = clock
    }

    public func makeFraming() -> any Framing {
        FixedLengthFraming(length: CTAPHID.reportSize)
    }

    public func connectionOpened(_ connection: ConnectionID, peer: Peer, outlet: ConnectionOutlet) {
        let device = CTAPHIDDevice(limits: limits) {
            RandomBytes.make(count: 4).reduce(0) { $0 << 8 | UInt32($1) }
        }
        let openedAt = clock()
        lock.withLock { slots[connection] = Slot(device: device, outlet: outlet, peer: peer, openedAt: openedAt) }
    }

    public func handle(message: UnsafeRawBufferPointer, route: ReplyRoute) -> MessageDisposition {
        let output = ReplyBuffer(capacity: CTAPHID.reportSize)
        let now = clock()
        let answer: (events: [CTAPHIDDevice.Event], slot: Slot)? = lock.withLock {
            guard var slot = slots[route.connection] else { return nil }
            let events = slot.device.receive(message, now: now, output: output)
            slots[route.connection] = slot
            track(route.connection, slot.device)
            return (events, slot)
        }
        if output.count > 0 {
            route.send { reply in
                output.withUnsafeBytes { reply.append($0) }
                output.zero()
            }
        } else {
            route.finishWithoutReply()
        }
        guard let answer else { return .close(reason: "a report for a connection the door does not know") }
        dispatch(answer.events, connection: route.connection, slot: answer.slot)
        return .accepted
    }

    public func tick(now: Int64) -> Int64? {
        var sends: [(ConnectionOutlet, ReplyBuffer)] = []
        let soonest: Int64? = lock.withLock {
            var soonest: Int64?
            for connection in busy {
                guard var slot = slots[connection] else { continue }
                let output = ReplyBuffer(capacity: CTAPHID.reportSize)
                let (peer, openedAt) = (slot.peer, slot.openedAt)
                let due = slot.device.tick(now: now, output: output) { [authenticator] channel in
                    authenticator.keepaliveStatus(Self.channel(channel, connection: connection, peer: peer, openedAt: openedAt)).rawValue
                }
                slots[connection] = slot
                track(connection, slot.device)
                if output.count > 0 { sends.append((slot.outlet, output)) }
                if let due { soonest = min(soonest ?? due, due) }
            }
            return soonest
        }
        for (outlet, output) in sends { outlet.send(output) }
        return soonest
    }

    public func connectionClosed(_ connection: ConnectionID, peer: Peer) {
        let closed: (events: [CTAPHIDDevice.Event], slot: Slot)? = lock.withLock {
            busy.remove(connection)
            guard var slot = slots.removeValue(forKey: connection) else { return nil }
            return (slot.device.close(), slot)
        }
        if let closed { dispatch(closed.events, connection: connection, slot: closed.slot) }
    }

    /// A pending request keeps its connection open past `server.idle_timeout_seconds`.
    public func keepsAlive(_ connection: ConnectionID) -> Bool {
        lock.withLock { slots[connection]?.device.isBusy ?? false }
    }

    /// Connections served now (for tests of the door's own bounds).
    public var connectionCount: Int { lock.withLock { slots.count } }

    // MARK: -

    private func dispatch(_ events: [CTAPHIDDevice.Event], connection: ConnectionID, slot: Slot) {
        let channel = { (id: UInt32) in Self.channel(id, connection: connection, peer: slot.peer, openedAt: slot.openedAt) }
        for event in events {
            switch event {
            case .cbor(let id, let request):
                authenticator.cbor(request, on: channel(id)) { [weak self] response in
                    guard let self else { return response.zero() }
                    self.replied(response, connection: connection, channel: id)
                }
            case .cancel(let id):
                authenticator.cancel(channel(id))
            case .channelClosed(let id):
                authenticator.channelClosed(channel(id))
            case .wink(let id):
                authenticator.wink(channel(id))
            }
        }
    }

    /// The authenticator's reply, from any thread: framed into the connection's outlet, or
    /// zeroed when its connection or channel has gone.
    private func replied(_ response: ReplyBuffer, connection: ConnectionID, channel: UInt32) {
        let output = ReplyBuffer(capacity: max(response.count + response.count / 8, CTAPHID.reportSize))
        let outlet: ConnectionOutlet? = lock.withLock {
            guard var slot = slots[connection] else { return nil }
            let sent = slot.device.replied(channel: channel, response: response, output: output)
            slots[connection] = slot
            track(connection, slot.device)
            return sent ? slot.outlet : nil
        }
        response.zero()
        if let outlet, output.count > 0 { outlet.send(output) } else { output.zero() }
    }

    /// Keeps `busy` to the connections in a transaction (the caller holds the lock).
    private func track(_ connection: ConnectionID, _ device: CTAPHIDDevice) {
        if device.isBusy { busy.insert(connection) } else { busy.remove(connection) }
    }

    private static func channel(_ id: UInt32, connection: ConnectionID, peer: Peer, openedAt: Int64) -> CTAPChannel {
        CTAPChannel(connection: connection, id: id, uid: peer.uid, pid: peer.pid, poweredUpAt: openedAt)
    }
}
