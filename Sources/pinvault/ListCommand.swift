import ArgumentParser
import PinVaultClient

/// `pinvault list [USER] [--owner-uid UID]`
struct ListCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "list",
        abstract: "List your credentials, of one user or all.",
        discussion: """
            One row per credential: its user, key id, label, purpose, algorithm, state, wrong PINs so \
            far and left, and when it was last used and created. Admins may list another \
            uid's credentials with --owner-uid. A purpose of legacy marks a credential made \
            before key purposes existed: it keeps working, but a key registered for one \
            purpose is safer (pinvault(1), KEY PURPOSES).
            """
    )

    @OptionGroup var global: GlobalOptions

    @Argument(help: ArgumentHelp("Only this account's credentials.", valueName: "user"))
    var user: String?

    @Option(help: ArgumentHelp("Admins only: the credentials of this uid instead of your own.", valueName: "uid"))
    var ownerUid: UInt32?

    func run() async throws {
        try await global.run { console in
            let client = try global.connect()
            defer { client.close() }
            let credentials = try await client.list(user: user, ownerUid: ownerUid)
            console.show(.object([("credentials", .array(credentials.map(\.json)))])) {
                guard !credentials.isEmpty else {
                    return console.say(user.map { "No credentials for \($0)." } ?? "No credentials.")
                }
                StandardStream.output.write(Self.table(credentials, showingOwner: ownerUid != nil).text)
                let legacy = credentials.filter { $0.purpose == .legacy }.count
                if legacy > 0 {
                    console.note(legacy == 1
                        ? "1 credential is legacy (made before key purposes): register one per purpose and retire it (pinvault(1))"
                        : "\(legacy) credentials are legacy (made before key purposes): register one per purpose and retire them (pinvault(1))")
                }
            }
            return .success
        }
    }

    /// The credentials as a table; with the OWNER column when another uid's are listed.
    static func table(_ credentials: [Credential], showingOwner: Bool) -> Table {
        let headers = ["USER", "KEY ID", "LABEL", "PURPOSE", "ALGORITHM", "STATE", "FAILED/REMAINING", "LAST USED", "CREATED"]
        let rows = credentials.map { credential in
            [
                credential.user,
                credential.keyId,
                credential.label ?? "-",
                credential.purpose.rawValue,
                credential.algorithm.rawValue,
                Self.state(of: credential),
                "\(credential.failedAttempts)/\(credential.remainingAttempts)",
                credential.lastUsedAt.map(WireText.time) ?? "never",
                WireText.time(credential.createdAt),
            ]
        }
        guard showingOwner else { return Table(headers: headers, rows: rows) }
        return Table(headers: ["OWNER"] + headers, rows: zip(credentials, rows).map { [String($0.ownerUid)] + $1 })
    }

    /// The state, with until when it lasts where that is known.
    static func state(of credential: Credential) -> String {
        switch credential.state {
        case .active: "active"
        case .blocked: "blocked"
        case .throttled: "throttled" + (credential.lockedUntil.map { " until " + WireText.time($0) } ?? "")
        case .pendingUnregistration:
            "unregistering" + (credential.unregistrationExpiresAt.map { " until " + WireText.time($0) } ?? "")
        }
    }
}
