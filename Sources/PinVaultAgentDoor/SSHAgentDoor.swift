import Dispatch
import PinVaultSSHProtocol
import PinVaultDoor
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
            // The signature is the named key's: its blob says how SSH writes it.
            guard let algorithm = SSHAgentOffer.key(ofBlob: keyBlob)?.algorithm else {
                return reply(route, SSHAgentReply.failure())
            }
            backend.sign(keyBlob: keyBlob, data: data, flags: flags, call) { signature in
                Self.send(route, signature.flatMap { SSHAgentReply.signature($0, algorithm: algorithm) } ?? SSHAgentReply.failure())
            }
        case .removeIdentity(let keyBlob):
            backend.remove(keyBlob: keyBlob, call) { removed in
                Self.send(route, removed ? SSHAgentReply.success() : SSHAgentReply.failure())
            }
        case .removeAllIdentities:
            backend.remove(keyBlob: nil, call) { _ in Self.send(route, SSHAgentReply.success()) }
        case .extension(let name, let contents) where name.elementsEqual(SSHSessionBind.name.utf8):
            bind(contents, route)
        case .extension(let name, _) where name.elementsEqual("query".utf8):
            return reply(route, SSHAgentReply.queryAnswer(Self.extensions))
        case .extension:
            return reply(route, SSHAgentReply.failure())
        case .unsupported:
            return reply(route, SSHAgentReply.failure())
        }
        return .accepted
    }

    /// `session-bind@openssh.com`, as OpenSSH's agent takes it: verified with the host
    /// key it names and recorded for the connection (SSH_AGENT_SUCCESS), or refused
    /// (SSH_AGENT_EXTENSION_FAILURE). The cheap rules come first; the signature check,
    /// which a peer can make cost milliseconds (a large RSA or P-521 host key), runs off
    /// the event loop, so that no peer's binds hold up another's requests. The
    /// connection's next message waits for this answer, as every message does.
    private func bind(_ contents: [UInt8], _ route: ReplyRoute) {
        let connection = route.connection
        guard let bind = try? contents.withUnsafeBytes({ bytes throws(SSHAgentMessageError) in try SSHSessionBind.parse(bytes) }) else {
            connections.withLock { $0[connection, default: AgentConnectionState()].recordUnreadable() }
            return Self.send(route, SSHAgentReply.extensionFailure())
        }
        guard connections.withLock({ $0[connection, default: AgentConnectionState()].admit(bind) }) else {
            return Self.send(route, SSHAgentReply.extensionFailure())
        }
        Self.verifier.async { [self] in
            let verified = !route.isCancelled && HostKeySignature.verify(
                hostKeyBlob: bind.hostKeyBlob, signatureBlob: bind.signatureBlob, data: bind.sessionIdentifier
            )
            // A connection that closed meanwhile has no state to record into any more.
            let recorded = verified && connections.withLock { $0[connection]?.record(bind, verified: true) ?? false }
            Self.send(route, recorded ? SSHAgentReply.success() : SSHAgentReply.extensionFailure())
        }
    }

    /// Where host key signatures are checked, beside the loop.
    private static let verifier = DispatchQueue(label: "pv-agent-session-bind", attributes: .concurrent)

    private static func send(_ route: ReplyRoute, _ frame: [UInt8]) {
        route.send { buffer in frame.withUnsafeBytes { buffer.append($0) } }
    }

    private func reply(_ route: ReplyRoute, _ frame: [UInt8]) -> MessageDisposition {
        Self.send(route, frame)
        return .accepted
    }
}
