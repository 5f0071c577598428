import PinVaultAgentDoor
import PinVaultCrypto
import PinVaultEngine
import PinVaultSSHProtocol
import PinVaultDoor

/// pinvaultd's ssh-agent socket (docs/ARCHITECTURE.md): the ssh-agent door
/// (`SSHAgentDoor`: framing, the switch, `session-bind@openssh.com`) over the engine.
/// It offers the caller uid's unlocked keys that `KeyAccess.sshAgent` serves, with their
/// certificates, and signs with them; every answer comes from the engine's sessions.
/// It cannot ask anyone anything: a session unlocked to confirm each use refuses it, and
/// a connection ssh forwarded signs only with a session unlocked to allow that.
public enum SSHAgentFrontDoor {
    public static func make(engine: VaultEngine) -> SSHAgentDoor {
        SSHAgentDoor(backend: EngineAgentBackend(engine: engine))
    }
}

/// The engine behind pinvaultd's agent socket.
struct EngineAgentBackend: SSHAgentBackend {
    let engine: VaultEngine

    func identities(_ call: AgentCall, answer: @escaping @Sendable ([SSHAgentReply.Identity]?) -> Void) {
        submit(.unlockedKeys(access: .sshAgent), call) { result in
            guard case .success(.unlockedKeys(let keys)) = result else { return answer(nil) }
            answer(SSHAgentOffer.identities(keys.map {
                SSHAgentOffer(algorithm: $0.algorithm, publicKey: $0.publicKey, user: $0.user, label: $0.label, certificates: $0.certificates)
            }))
        }
    }

    func sign(keyBlob: [UInt8], data: [UInt8], flags: UInt32, _ call: AgentCall, answer: @escaping @Sendable ([UInt8]?) -> Void) {
        guard let keyId = Self.keyId(ofBlob: keyBlob) else { return answer(nil) }
        // This door asks no one: it never says a signature was confirmed.
        let context = SigningContext(forwarded: call.state.isForwarded, confirmed: false)
        submit(.sign(keyId: keyId, message: data, access: .sshAgent, context: context), call) { result in
            guard case .success(.signature(let signature)) = result else { return answer(nil) }
            answer(signature)
        }
    }

    func remove(keyBlob: [UInt8]?, _ call: AgentCall, answer: @escaping @Sendable (Bool) -> Void) {
        var keyId: KeyID?
        if let keyBlob {
            guard let found = Self.keyId(ofBlob: keyBlob) else { return answer(false) }
            keyId = found
        }
        submit(.lock(keyId: keyId, access: .sshAgent), call) { result in
            guard case .success(.locked(let keyIds)) = result else { return answer(false) }
            answer(keyBlob == nil || !keyIds.isEmpty)
        }
    }

    /// The keyId of a key blob, or of the key a certificate certifies; nil for any
    /// other blob (none of ours).
    static func keyId(ofBlob blob: [UInt8]) -> KeyID? {
        SSHAgentOffer.publicKey(ofBlob: blob).flatMap { try? KeyID(publicKey: $0) }
    }

    private func submit(
        _ request: VaultRequest, _ call: AgentCall, _ answer: @escaping @Sendable (Result<VaultResult, VaultError>) -> Void
    ) {
        let caller = Caller(uid: call.peer.uid, pid: call.peer.pid, isAdmin: call.peer.isAdmin)
        engine.submit(request, from: caller, isCancelled: call.isCancelled, answer: answer)
    }
}
