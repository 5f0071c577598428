import PinVaultClient

/// The credential a session command means: the one `--key-id` names, the user's only
/// one, or — among several — the only one unlocked when `preferUnlocked`.
enum CredentialChoice {
    static func resolve(
        _ options: CredentialOptions, client: PinVaultClient, preferUnlocked: Bool = false
    ) async throws -> Credential {
        let credentials = try await client.list(user: options.user)
        if let keyId = options.keyId {
            guard let chosen = credentials.first(where: { $0.keyId == keyId }) else { throw CommandFailure(.noSuchCredential) }
            return chosen
        }
        if credentials.count == 1 { return credentials[0] }
        if credentials.isEmpty { throw CommandFailure(.noSuchCredential) }
        if preferUnlocked {
            let unlocked = credentials.filter { $0.unlockedUntil != nil }
            if unlocked.count == 1 { return unlocked[0] }
        }
        throw CommandFailure(.ambiguousCredential(keyIds: credentials.map(\.keyId)))
    }
}
