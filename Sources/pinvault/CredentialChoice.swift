import PinVaultClient

/// The credential a session command means: the one `--key-id` names, the user's only
/// one of the `purposes` the command serves, or — among several — the only one unlocked
/// when `preferUnlocked`. Only a choice of what the user means: the daemon decides what
/// each key may do, and answers WrongPurpose to anything else.
enum CredentialChoice {
    static func resolve(
        _ options: CredentialOptions, client: PinVaultClient, purposes: Set<Credential.Purpose>, preferUnlocked: Bool = false
    ) async throws -> Credential {
        let all = try await client.list(user: options.user)
        if let keyId = options.keyId {
            guard let chosen = all.first(where: { $0.keyId == keyId }) else { throw CommandFailure(.noSuchCredential) }
            return chosen
        }
        let credentials = all.filter { purposes.contains($0.purpose) }
        if credentials.count == 1 { return credentials[0] }
        if credentials.isEmpty {
            // The user's only credentials are for other purposes: say which, as the daemon would.
            throw CommandFailure(all.first.map { .wrongPurpose($0.purpose) } ?? .noSuchCredential)
        }
        if preferUnlocked {
            let unlocked = credentials.filter { $0.unlockedUntil != nil }
            if unlocked.count == 1 { return unlocked[0] }
        }
        throw CommandFailure(.ambiguousCredential(keyIds: credentials.map(\.keyId)))
    }
}
