import ArgumentParser
import Glibc
import PinVaultClient

/// `pinvault unblock USER --key-id ID [--owner-uid UID]`
struct UnblockCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "unblock",
        abstract: "Admins only: revive a blocked credential, so that its owner may try the PIN again.",
        discussion: "The credential is active again with every attempt restored; its PIN is unchanged. A credential that is not blocked is left as it is. The wrong PINs tried since the owner's last success stay counted (the owner's next right PIN reports them), and once they reach twice the daemon's maximum, unblock is refused (exit 4): only wipe is left."
    )

    @OptionGroup var global: GlobalOptions

    @Argument(help: ArgumentHelp("The account name the credential belongs to.", valueName: "user"))
    var user: String

    @Option(help: ArgumentHelp("The credential to unblock (32 hex digits).", valueName: "key-id"))
    var keyId: String

    @Option(help: ArgumentHelp("The uid that owns the credential (default: your own).", valueName: "uid"))
    var ownerUid: UInt32?

    func run() async throws {
        try await global.run { console in
            let client = try global.connect()
            defer { client.close() }
            let credential = try await client.unblock(ownerUid: ownerUid ?? getuid(), user: user, keyId: keyId)
            console.show(.object([("credential", credential.json)])) {
                console.say("Unblocked \(credential.keyId) (\(credential.user)): \(credential.remainingAttempts) attempts left.")
            }
            return .success
        }
    }
}
