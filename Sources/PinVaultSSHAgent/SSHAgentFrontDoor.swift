import PinVaultCrypto
import PinVaultEngine
import PinVaultSSHProtocol
import PinVaultTransport

/// The ssh-agent front door (docs/ARCHITECTURE.md): OpenSSH's agent protocol over
/// the same engine as the Varlink door. It offers the caller uid's unlocked
/// credentials (`pinvault unlock`) and signs with them; it never takes a key in, and
/// holds nothing itself: every answer comes from the engine's sessions.
///
/// One flat switch, one handler per message, as ssh-agent.c has. Anything it does not
/// serve — adding keys, smartcards, locking the agent with a passphrase, unknown
/// messages and malformed ones — is answered SSH_AGENT_FAILURE and the connection
/// goes on; only a broken framing closes it (`AgentFraming`). It logs nothing of
/// what a peer sends.
///
/// `session-bind@openssh.com` is refused (SSH_AGENT_FAILURE), and ssh goes on without
/// it: the binding serves destination constraints on keys added with `ssh-add -h`,
/// and this agent takes no keys (SECURITY.md).
public final class SSHAgentFrontDoor: MessageHandler {
    private let engine: VaultEngine

    public init(engine: VaultEngine) {
        self.engine = engine
    }

    public func makeFraming() -> any Framing {
        AgentFraming()
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
        let caller = Caller(uid: route.peer.uid, pid: route.peer.pid, isAdmin: route.peer.isAdmin)
        switch request {
        case .requestIdentities:
            submit(.unlockedKeys(access: .sshAgent), caller, route) { result in
                guard case .success(.unlockedKeys(let keys)) = result else { return SSHAgentReply.failure() }
                return SSHAgentReply.identities(keys.map {
                    .init(publicKey: $0.publicKey, comment: SSHEd25519.comment(user: $0.user, label: $0.label))
                })
            }
        case .sign(let keyBlob, let data, _):
            guard let keyId = Self.keyId(ofBlob: keyBlob) else { return reply(route, SSHAgentReply.failure()) }
            submit(.sign(keyId: keyId, message: data, access: .sshAgent), caller, route) { result in
                guard case .success(.signature(let signature)) = result else { return SSHAgentReply.failure() }
                return SSHAgentReply.signature(signature)
            }
        case .removeIdentity(let keyBlob):
            guard let keyId = Self.keyId(ofBlob: keyBlob) else { return reply(route, SSHAgentReply.failure()) }
            submit(.lock(keyId: keyId, access: .sshAgent), caller, route) { result in
                guard case .success(.locked(let keyIds)) = result, !keyIds.isEmpty else { return SSHAgentReply.failure() }
                return SSHAgentReply.success()
            }
        case .removeAllIdentities:
            submit(.lock(keyId: nil, access: .sshAgent), caller, route) { result in
                guard case .success = result else { return SSHAgentReply.failure() }
                return SSHAgentReply.success()
            }
        case .extension(let name, _):
            return reply(route, name.elementsEqual("query".utf8) ? SSHAgentReply.queryAnswer() : SSHAgentReply.failure())
        case .unsupported:
            return reply(route, SSHAgentReply.failure())
        }
        return .accepted
    }

    /// The keyId of an `ssh-ed25519` key blob; nil for any other key (none of ours).
    static func keyId(ofBlob blob: [UInt8]) -> KeyID? {
        guard let publicKey = try? blob.withUnsafeBytes({ bytes throws(SSHAgentMessageError) in
            try SSHEd25519.publicKey(fromBlob: bytes)
        }) else { return nil }
        return try? KeyID(publicKey: publicKey)
    }

    private func submit(
        _ request: VaultRequest, _ caller: Caller, _ route: ReplyRoute,
        _ encode: @escaping @Sendable (Result<VaultResult, VaultError>) -> [UInt8]
    ) {
        engine.submit(request, from: caller, isCancelled: { route.isCancelled }) { result in
            let frame = encode(result)
            route.send { buffer in frame.withUnsafeBytes { buffer.append($0) } }
        }
    }

    private func reply(_ route: ReplyRoute, _ frame: [UInt8]) -> MessageDisposition {
        route.send { buffer in frame.withUnsafeBytes { buffer.append($0) } }
        return .accepted
    }
}
