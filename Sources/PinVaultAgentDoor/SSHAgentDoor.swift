import PinVaultSSHProtocol
import PinVaultTransport
import Synchronization

/// An ssh-agent front door (OpenSSH's PROTOCOL.agent) over a backend: pinvaultd's
/// agent socket over the engine, and the per-user agent over pinvaultd. It keeps what
/// is the protocol's — framing, the flat switch of ssh-agent.c, `query`, and each
/// connection's `session-bind@openssh.com` state — and asks the backend for keys and
/// signatures. It never takes a key in and holds no secret.
///
/// Anything it does not serve — adding keys, smartcards, locking the agent with a
/// passphrase, unknown and malformed messages — is SSH_AGENT_FAILURE and the
/// connection goes on; only a broken framing closes it (`AgentFraming`). It logs
/// nothing of what a peer sends.
public final class SSHAgentDoor: MessageHandler {
    private let backend: any SSHAgentBackend
    private let connections = Mutex<[ConnectionID: AgentConnectionState]>([:])

    /// The extensions `query` names.
    public static let extensions = ["query", SSHSessionBind.name]

    public init(backend: any SSHAgentBackend) {
        self.backend = backend
    }

    public func makeFraming() -> any Framing {
        AgentFraming()
    }

    public func connectionClosed(_ connection: ConnectionID, peer: Peer) {
        _ = connections.withLock { $0.removeValue(forKey: connection) }
        backend.connectionClosed(connection)
    }

    public func handle(message: UnsafeRawBufferPointer, route: ReplyRoute) -> MessageDisposition {
        guard !route.peerHasLeft else {
            route.finishWithoutReply()
            return .accepted
        }
        let request: SSHAgentRequest
        do {
            request = try SSHAgentRequest.parse(message)
        } catch {
            return reply(route, SSHAgentReply.failure())
        }
        let state = connections.withLock { $0[route.connection] ?? AgentConnectionState() }
        let call = AgentCall(peer: route.peer, connection: route.connection, state: state, isCancelled: { route.isCancelled })
        switch request {
        case .requestIdentities:
            backend.identities(call) { identities in
                Self.send(route, identities.map(SSHAgentReply.identities) ?? SSHAgentReply.failure())
            }
        case .sign(let keyBlob, let data, let flags):
            backend.sign(keyBlob: keyBlob, data: data, flags: flags, call) { signature in
                Self.send(route, signature.map(SSHAgentReply.signature) ?? SSHAgentReply.failure())
            }
        case .removeIdentity(let keyBlob):
            backend.remove(keyBlob: keyBlob, call) { removed in
                Self.send(route, removed ? SSHAgentReply.success() : SSHAgentReply.failure())
            }
        case .removeAllIdentities:
            backend.remove(keyBlob: nil, call) { _ in Self.send(route, SSHAgentReply.success()) }
        case .extension(let name, let contents):
            return reply(route, answerExtension(name: name, contents: contents, connection: route.connection))
        case .unsupported:
            return reply(route, SSHAgentReply.failure())
        }
        return .accepted
    }

    /// `query` lists what is served; `session-bind@openssh.com` is verified with the host
    /// key it names and recorded for the connection (SSH_AGENT_SUCCESS), or refused
    /// (SSH_AGENT_EXTENSION_FAILURE), as OpenSSH's agent does.
    private func answerExtension(name: [UInt8], contents: [UInt8], connection: ConnectionID) -> [UInt8] {
        if name.elementsEqual("query".utf8) { return SSHAgentReply.queryAnswer(Self.extensions) }
        guard name.elementsEqual(SSHSessionBind.name.utf8) else { return SSHAgentReply.failure() }
        guard let bind = try? contents.withUnsafeBytes({ bytes throws(SSHAgentMessageError) in try SSHSessionBind.parse(bytes) }) else {
            connections.withLock { $0[connection, default: AgentConnectionState()].recordUnreadable() }
            return SSHAgentReply.extensionFailure()
        }
        let verified = HostKeySignature.verify(
            hostKeyBlob: bind.hostKeyBlob, signatureBlob: bind.signatureBlob, data: bind.sessionIdentifier
        )
        let recorded = connections.withLock { $0[connection, default: AgentConnectionState()].record(bind, verified: verified) }
        return recorded ? SSHAgentReply.success() : SSHAgentReply.extensionFailure()
    }

    private static func send(_ route: ReplyRoute, _ frame: [UInt8]) {
        route.send { buffer in frame.withUnsafeBytes { buffer.append($0) } }
    }

    private func reply(_ route: ReplyRoute, _ frame: [UInt8]) -> MessageDisposition {
        Self.send(route, frame)
        return .accepted
    }
}
