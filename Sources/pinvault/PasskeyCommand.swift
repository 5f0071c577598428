import ArgumentParser
import PinVaultClient
import PinVaultProtocol

/// `pinvault passkey list [--rp RPID]` and `pinvault passkey remove CREDENTIAL-ID`
struct PasskeyCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "passkey",
        abstract: "List the passkeys your security key made, or remove one.",
        discussion: """
            Browsers and other WebAuthn clients make passkeys with your security key (a \
            credential registered with --purpose webauthn). A passkey is public data: \
            listing one needs no PIN; signing in with one takes the security key's PIN. A \
            removed passkey is gone for good: its relying party's account has no key here.
            """,
        subcommands: [PasskeyListCommand.self, PasskeyRemoveCommand.self]
    )
}

struct PasskeyListCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(commandName: "list", abstract: "List your passkeys, oldest first.")

    @OptionGroup var global: GlobalOptions
    @Option(name: .customLong("rp"), help: ArgumentHelp("Only those of this relying party (its id, a domain).", valueName: "rpid"))
    var rpId: String?

    func run() async throws {
        try await global.run { console in
            let client = try global.connect()
            defer { client.close() }
            let passkeys = try await client.passkeys(rpId: rpId)
            console.show(.object([("passkeys", .array(passkeys.map(Self.json)))])) {
                guard !passkeys.isEmpty else { return console.say("No passkeys.") }
                let rows = passkeys.map { passkey in
                    [
                        TerminalText.escaped(passkey.rpId), TerminalText.escaped(passkey.userName ?? "-"),
                        Base64.encodedString(passkey.credentialId, alphabet: .url), passkey.algorithm.rawValue,
                        passkey.createdAt.rfc3339,
                    ]
                }
                StandardStream.output.write(Table(headers: ["RELYING PARTY", "USER", "CREDENTIAL ID", "ALGORITHM", "CREATED"], rows: rows).text)
            }
            return .success
        }
    }

    /// A passkey as `--json` shows it; ids in base64url, as WebAuthn writes them.
    static func json(_ passkey: Passkey) -> JSONValue {
        .object([
            ("credentialId", .string(Base64.encodedString(passkey.credentialId, alphabet: .url))),
            ("rpId", .string(passkey.rpId)),
            ("userHandle", .string(Base64.encodedString(passkey.userHandle, alphabet: .url))),
            ("userName", passkey.userName.map(JSONValue.string) ?? .null),
            ("displayName", passkey.displayName.map(JSONValue.string) ?? .null),
            ("algorithm", .string(passkey.algorithm.rawValue)),
            ("createdAt", .string(passkey.createdAt.rfc3339)),
        ])
    }
}

struct PasskeyRemoveCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(commandName: "remove", abstract: "Remove one of your passkeys.")

    @OptionGroup var global: GlobalOptions
    @Argument(help: ArgumentHelp("Its credential id, in base64url as `passkey list` prints it.", valueName: "credential-id"))
    var credentialId: String

    func run() async throws {
        try await global.run { console in
            guard let id = try? Base64.decode(credentialId, alphabet: .url) else {
                throw CommandFailure.usage("\(credentialId) is not a credential id (base64url, as passkey list prints it)")
            }
            let client = try global.connect()
            defer { client.close() }
            try await client.removePasskey(credentialId: id)
            console.show(.object([("removed", .string(credentialId))])) { console.say("Removed passkey \(credentialId).") }
            return .success
        }
    }
}
