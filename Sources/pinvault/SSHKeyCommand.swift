import ArgumentParser
import PinVaultClient
import PinVaultSSHProtocol

/// `pinvault ssh-key USER [--key-id ID]`
struct SSHKeyCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "ssh-key",
        abstract: "Print a credential's public key as an OpenSSH key line.",
        discussion: """
            Prints `ssh-ed25519 BASE64 USER (LABEL)` (`ecdsa-sha2-nistp256 …` for a p256 \
            key), the line for a server's \
            ~/.ssh/authorized_keys, and, after the signer's principal, for git's \
            gpg.ssh.allowedSignersFile. `ssh-keygen -lf` reads it for the fingerprint that \
            `ssh-add -l` shows once the credential is unlocked. Only for a credential \
            registered with --purpose ssh (or a legacy one): no other key is ever offered \
            to ssh (exit status 11).
            """
    )

    @OptionGroup var global: GlobalOptions
    @OptionGroup var credential: CredentialOptions

    func run() async throws {
        try await global.run { console in
            let client = try global.connect()
            defer { client.close() }
            let chosen = try await CredentialChoice.resolve(credential, client: client, purposes: [.ssh, .legacy])
            guard chosen.purpose == .ssh || chosen.purpose == .legacy else { throw CommandFailure(.wrongPurpose(chosen.purpose)) }
            if chosen.purpose == .legacy {
                console.note("this credential is legacy (made before key purposes): register one with --purpose ssh and retire it (pinvault(1))")
            }
            let line = SSHKey(algorithm: chosen.algorithm, publicKey: chosen.publicKey)
                .line(comment: SSHKey.comment(user: chosen.user, label: chosen.label))
            console.show(.object([("keyId", .string(chosen.keyId)), ("sshPublicKey", .string(line))])) {
                console.say(line)
            }
            return .success
        }
    }
}
