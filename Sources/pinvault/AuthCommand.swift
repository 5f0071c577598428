import ArgumentParser
import PinVaultClient

/// `pinvault auth USER [--key-id ID] [--owner-uid UID] --challenge-… C`
struct AuthCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "auth",
        abstract: "Sign a challenge with a credential, after checking its PIN.",
        discussion: """
            The signature is the credential's algorithm's over exactly the challenge's bytes \
            (1 to 1024): Ed25519, or for a p256 key ECDSA over SHA-256 of them, DER-encoded, so \
            a relying party verifies it with the public key and any Ed25519 or ECDSA library. Prints the \
            key id, the public key and the signature (base64), and a warning on stderr when \
            the PIN no longer meets the policy, and one when wrong PINs were tried since the \
            credential's last success (someone else may have been guessing). A wrong PIN \
            counts towards the lockout. \
            Admins may use another uid's credential with --owner-uid (and its PIN).
            """
    )

    @OptionGroup var global: GlobalOptions
    @OptionGroup var credential: CredentialOptions
    @OptionGroup var challenge: ChallengeOptions
    @OptionGroup var pins: PinOptions

    @Option(help: ArgumentHelp("Admins only: the credential of this uid instead of your own.", valueName: "uid"))
    var ownerUid: UInt32?

    func run() async throws {
        try await global.run { console in
            let input = try pins.input()
            let bytes = try challenge.bytes(standardInputTaken: pins.readsStandardInput)
            if input.isTerminal { try global.checkDaemon() }
            let pin = try input.readPIN(prompt: "PIN for \(credential.user): ")
            let client = try global.connect()
            defer { client.close() }
            let result = try await client.authenticate(
                user: credential.user, keyId: credential.keyId, pin: pin, challenge: bytes, ownerUid: ownerUid
            )
            console.show(result.json) {
                StandardStream.output.write(Table(headers: nil, rows: [
                    ["Key ID:", result.keyId],
                    ["Public key:", WireText.base64(result.publicKey)],
                    ["Signature:", WireText.base64(result.signature)],
                ]).text)
            }
            console.noteFailedAttemptsCleared(result.failedAttemptsCleared)
            if result.pinPolicyOutdated {
                console.note("warning: this PIN no longer meets the PIN policy; change it with `pinvault change-pin \(credential.user)`")
            }
            return .success
        }
    }
}
