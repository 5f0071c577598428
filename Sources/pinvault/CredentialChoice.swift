import PinVaultClient

/// The credential a command means: the one `--key-id` names, the one `--label` names,
/// the user's only one of the `purposes` the command serves, or — among several — the
/// one the person at the terminal picks. Only a choice of what the user means: the
/// daemon decides what each key may do, and answers WrongPurpose to anything else.
enum CredentialChoice {
    /// For a session command that needs no PIN: among several, the only one unlocked
    /// when `preferUnlocked`; else the ambiguity is an error listing them.
    static func resolve(
        _ options: CredentialOptions, client: PinVaultClient, purposes: Set<Credential.Purpose>, preferUnlocked: Bool = false
    ) async throws -> Credential {
        let all = try await client.list(user: options.user)
        if let keyId = options.keyId {
            guard let chosen = all.first(where: { $0.keyId == keyId }) else { throw CommandFailure(.noSuchCredential) }
            return chosen
        }
        let credentials = try candidates(all, options: options, purposes: purposes)
        if credentials.count == 1 { return credentials[0] }
        if preferUnlocked {
            let unlocked = credentials.filter { $0.unlockedUntil != nil }
            if unlocked.count == 1 { return unlocked[0] }
        }
        throw ambiguous(options.user, credentials)
    }

    /// For a command that asks for a PIN: the key id to send, chosen before the PIN is
    /// asked, so that nobody types a PIN for a call that cannot go through. Among
    /// several, a terminal (`input`) asks which one, showing their labels; without
    /// one, an error lists them (nothing is read). nil only with `--key-id` absent and
    /// `purposes` nil and no credential to choose from: the daemon answers then.
    /// Connecting here also checks that the daemon answers.
    static func choose(
        _ options: CredentialOptions, global: GlobalOptions, input: SecretInput?, purposes: Set<Credential.Purpose>?,
        ownerUid: UInt32? = nil
    ) async throws -> String? {
        if let keyId = options.keyId {
            if case .terminal = input { try global.checkDaemon() }
            return keyId
        }
        let client = try global.connect()
        defer { client.close() }
        let all = try await client.list(user: options.user, ownerUid: ownerUid)
        let credentials = try candidates(all, options: options, purposes: purposes ?? Set(all.map(\.purpose)))
        if credentials.count == 1 { return credentials[0].keyId }
        guard case .terminal(let terminal) = input else { throw ambiguous(options.user, credentials) }
        return try ask(terminal, user: options.user, among: credentials).keyId
    }

    /// The user's credentials that `--label` names, or that serve `purposes`. None is
    /// an error: the label names none, or the user's credentials are all for other
    /// purposes (WrongPurpose, as the daemon would answer), or there are none.
    private static func candidates(
        _ all: [Credential], options: CredentialOptions, purposes: Set<Credential.Purpose>
    ) throws -> [Credential] {
        if let label = options.label {
            let labelled = all.filter { $0.label == label }
            guard !labelled.isEmpty else {
                throw CommandFailure(
                    status: .noSuchCredential,
                    message: "\(options.user) has no credential labelled \(label) (pinvault list shows the labels)",
                    name: "io.pinvault.Vault.NoSuchCredential"
                )
            }
            return labelled
        }
        let serving = all.filter { purposes.contains($0.purpose) }
        if serving.isEmpty {
            throw CommandFailure(all.first.map { .wrongPurpose($0.purpose) } ?? .noSuchCredential)
        }
        return serving
    }

    /// Several credentials and nothing to choose by: AmbiguousCredential (exit 6), with
    /// each key id, label and purpose.
    static func ambiguous(_ user: String, _ credentials: [Credential]) -> CommandFailure {
        CommandFailure(
            status: .noSuchCredential,
            message: "\(user) holds \(credentials.count) credentials; choose one with --label or --key-id:\n"
                + rows(credentials).text.split(separator: "\n").map { "  " + $0 }.joined(separator: "\n"),
            name: "io.pinvault.Vault.AmbiguousCredential",
            parameters: [("keyIds", .array(credentials.map { .string($0.keyId) }))]
        )
    }

    /// The credentials as rows: number, label, purpose, key id (escaped for the terminal).
    private static func rows(_ credentials: [Credential], numbered: Bool = false) -> Table {
        Table(headers: nil, rows: credentials.enumerated().map { index, credential in
            (numbered ? ["\(index + 1))"] : []) + [credential.label ?? "-", credential.purpose.rawValue, credential.keyId]
        })
    }

    /// Shows the credentials numbered on the terminal and reads the choice: a number,
    /// a label or a key id. Anything else chooses nothing (a usage error).
    private static func ask(_ terminal: Terminal, user: String, among credentials: [Credential]) throws -> Credential {
        terminal.write(TerminalText.escaped("\(user) holds \(credentials.count) credentials:") + "\n"
            + rows(credentials, numbered: true).text.split(separator: "\n").map { "  " + $0 + "\n" }.joined())
        let typed = terminal.readLine(prompt: "Which one (number or label): ") ?? ""
        let answer = String(typed.drop(while: \.isWhitespace).reversed().drop(while: \.isWhitespace).reversed())
        if let number = Int(answer), (1...credentials.count).contains(number) { return credentials[number - 1] }
        let named = credentials.filter { $0.label == answer || $0.keyId == answer }
        guard named.count == 1 else {
            throw CommandFailure.usage(answer.isEmpty
                ? "no credential chosen"
                : "\(TerminalText.escaped(answer)) is none of the \(credentials.count) credentials shown")
        }
        return named[0]
    }
}
