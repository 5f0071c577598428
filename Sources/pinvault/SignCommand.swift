import ArgumentParser
import PinVaultClient

/// `pinvault sign USER [--key-id ID] --challenge-… C`
struct SignCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "sign",
        abstract: "Sign a challenge with an unlocked credential, without a PIN.",
        discussion: """
            Like auth, but with a credential that `pinvault unlock` opened: no PIN is asked \
            and none is counted. The key's signature over exactly the challenge's bytes (1 to 1024), as auth's. \
            Without --key-id, the user's only credential, or the only one unlocked. Exits \
            with status 10 when the credential is not unlocked.
            """
    )

    @OptionGroup var global: GlobalOptions
    @OptionGroup var credential: CredentialOptions
    @OptionGroup var challenge: ChallengeOptions

    func run() async throws {
        try await global.run { console in
            let bytes = try challenge.bytes(standardInputTaken: false)
            let client = try global.connect()
            defer { client.close() }
            let keyId = try await CredentialChoice.resolve(
                credential, client: client, purposes: [.authenticate, .legacy], preferUnlocked: true
            ).keyId
            let signature = try await client.sign(keyId: keyId, challenge: bytes)
            console.show(.object([("signature", .string(WireText.base64(signature)))])) {
                StandardStream.output.write(Table(headers: nil, rows: [
                    ["Key ID:", keyId],
                    ["Signature:", WireText.base64(signature)],
                ]).text)
            }
            return .success
        }
    }
}
