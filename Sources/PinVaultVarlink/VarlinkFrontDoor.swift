import PinVaultCrypto
import PinVaultEngine
import PinVaultProtocol
import PinVaultDoor

/// The Varlink front door: parses each message as a Varlink call, answers
/// `org.varlink.service` itself, decodes `io.pinvault.Vault` calls into engine requests
/// and encodes what the engine answers. Everything a call needs, secrets included, is
/// decoded while the frame lives (`MessageHandler.handle`).
public final class VarlinkFrontDoor: MessageHandler {
    private let engine: VaultEngine
    private let serverStats: ServerStats
    private let info: VarlinkServiceInfo
    private let maxMessageBytes: Int

    /// `serverStats` supplies GetStats' connection and request counts.
    public init(engine: VaultEngine, serverStats: ServerStats, version: String, maxMessageBytes: Int) {
        self.engine = engine
        self.serverStats = serverStats
        self.info = .pinVault(version: version)
        self.maxMessageBytes = maxMessageBytes
    }

    public func makeFraming() -> any Framing {
        VarlinkFraming(maxMessageBytes: maxMessageBytes)
    }

    public func handle(message: UnsafeRawBufferPointer, route: ReplyRoute) -> MessageDisposition {
        let call: VarlinkCall
        do {
            call = try VarlinkCall.parse(message)
        } catch {
            switch error {
            case .protocolViolation:
                return .close(reason: "not a Varlink call")
            case .invalidField(let field, let oneway):
                return answer(route, oneway: oneway, .invalidParameter(parameter: field))
            }
        }
        guard begin(route, oneway: call.oneway) else { return .accepted }
        if call.upgrade {
            // No method of either interface upgrades the connection.
            return answer(route, .invalidParameter(parameter: "upgrade"))
        }
        if call.isInterface(VaultInterface.name) {
            return vaultCall(call, route: route)
        }
        if call.isInterface(VarlinkServiceInterface.name) {
            return serviceCall(call, route: route)
        }
        return answer(route, .interfaceNotFound(interface: call.interface))
    }

    /// Declares a oneway call to the route. False when the call must not run: it
    /// wants a reply, and its peer has left (the route is then finished).
    private func begin(_ route: ReplyRoute, oneway: Bool) -> Bool {
        if oneway { route.markOneway() }
        guard route.peerHasLeft && !oneway else { return true }
        route.finishWithoutReply()
        return false
    }

    private func vaultCall(_ call: VarlinkCall, route: ReplyRoute) -> MessageDisposition {
        let request: VaultRequest
        do {
            guard let decoded = try VaultRequest.decode(method: call.methodName, call.parameters, connection: route.connection) else {
                return answer(route, .methodNotFound(method: call.method))
            }
            request = decoded
        } catch {
            return answer(route, .invalidParameter(parameter: error.parameter))
        }
        let peer = route.peer
        engine.submit(
            request,
            from: Caller(uid: peer.uid, pid: peer.pid, isAdmin: peer.isAdmin),
            isCancelled: { route.isCancelled },
            answer: { [serverStats] result in
                route.send { VarlinkReplies.append(result, serverStats: serverStats, to: $0) }
            }
        )
        return .accepted
    }

    /// A session opened with `bindToConnection` ends with its connection.
    public func connectionClosed(_ connection: ConnectionID, peer: Peer) {
        engine.endSessions(boundTo: connection)
    }

    /// A connection that holds a bound session is not closed for idleness: the session
    /// would end with it (a PKCS#11 login that signs less often than the idle timeout).
    public func keepsAlive(_ connection: ConnectionID) -> Bool {
        engine.hasSessions(boundTo: connection)
    }

    private func serviceCall(_ call: VarlinkCall, route: ReplyRoute) -> MessageDisposition {
        switch VarlinkServiceInterface.Method(rawValue: call.methodName) {
        case .getInfo:
            do {
                try call.parameters.rejectUnknown(allowed: [])
            } catch {
                return answer(route, .invalidParameter(parameter: error.parameter))
            }
            route.send { [info] buffer in VarlinkReply.appendSuccess(to: buffer) { info.writeParameters(&$0) } }
        case .getInterfaceDescription:
            let name: String
            do {
                try call.parameters.rejectUnknown(allowed: ["interface"])
                name = try call.parameters.string("interface", required: true, bytes: 1...255) ?? ""
            } catch {
                return answer(route, .invalidParameter(parameter: error.parameter))
            }
            let description: String
            switch name {
            case VaultInterface.name: description = VaultInterface.description
            case VarlinkServiceInterface.name: description = VarlinkServiceInterface.description
            default: return answer(route, .interfaceNotFound(interface: name))
            }
            route.send { VarlinkReply.appendSuccess(to: $0) { $0.field("description", description) } }
        case nil:
            return answer(route, .methodNotFound(method: call.method))
        }
        return .accepted
    }

    /// Answers at once with `error`; `oneway` is declared first when the call was not
    /// parsed far enough for `begin`.
    private func answer(_ route: ReplyRoute, oneway: Bool? = nil, _ error: VarlinkServiceError) -> MessageDisposition {
        if let oneway, !begin(route, oneway: oneway) { return .accepted }
        route.send { VarlinkReply.appendError(error, to: $0) }
        return .accepted
    }
}
