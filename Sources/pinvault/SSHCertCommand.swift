import ArgumentParser
import Foundation
import PinVaultClient
import PinVaultProtocol
import PinVaultSSHProtocol

/// `pinvault ssh-cert add|remove|list USER [--key-id ID] [CERTFILE]`
struct SSHCertCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "ssh-cert",
        abstract: "Attach OpenSSH certificates to an ssh credential, detach them, list them.",
        discussion: """
            A CA signs the credential's public key (ssh-keygen -s CA -I ID -n PRINCIPALS \\
            KEY.pub, with the line `pinvault ssh-key` prints in KEY.pub) and gives back \\
            KEY-cert.pub; `pinvault ssh-cert add USER KEY-cert.pub` attaches it. Both agents \\
            then offer the certificate beside the key, and sign with the key for either, so \\
            servers that trust the CA (TrustedUserCAKeys) let you in without your key in \\
            authorized_keys. Only a user certificate of the credential's own key is taken.
            """,
        subcommands: [SSHCertAddCommand.self, SSHCertRemoveCommand.self, SSHCertListCommand.self]
    )
}

/// A certificate file as `ssh-keygen -s` writes it: `TYPE BASE64 [COMMENT]`, one line.
struct CertificateFile: ParsableArguments {
    @Argument(help: ArgumentHelp("The certificate file (KEY-cert.pub), or - for standard input.", valueName: "certfile"))
    var path: String

    /// The certificate blob, checked to be a certificate of a key PinVault has.
    func blob() throws -> [UInt8] {
        let text: String
        if path == "-" {
            text = String(decoding: FileHandle.standardInput.readDataToEndOfFile().prefix(64 * 1024), as: UTF8.self)
        } else {
            guard let data = FileManager.default.contents(atPath: path) else { throw CommandFailure.usage("cannot read \(path)") }
            text = String(decoding: data.prefix(64 * 1024), as: UTF8.self)
        }
        let fields = text.split(whereSeparator: \.isWhitespace)
        guard fields.count >= 2, SSHCertificate.isTypeName(fields[0]),
              let blob = try? Base64.decode(String(fields[1])),
              let certificate = try? blob.withUnsafeBytes({ bytes throws(SSHAgentMessageError) in try SSHCertificate(blob: bytes) }),
              certificate.typeName == fields[0]
        else {
            let types = Credential.Algorithm.allCases.map(\.sshName).joined(separator: " or ")
            throw CommandFailure.usage("\(path) holds no OpenSSH certificate of an \(types) key")
        }
        return blob
    }
}

struct SSHCertAddCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(commandName: "add", abstract: "Attach a certificate of the credential's key.")

    @OptionGroup var global: GlobalOptions
    @OptionGroup var credential: CredentialOptions
    @OptionGroup var file: CertificateFile

    func run() async throws {
        try await global.run { console in
            let blob = try file.blob()
            let client = try global.connect()
            defer { client.close() }
            let chosen = try await CredentialChoice.resolve(credential, client: client, purposes: [.ssh])
            let updated = try await client.addSSHCertificate(keyId: chosen.keyId, certificate: blob)
            console.show(.object([("credential", updated.json)])) {
                console.say("\(updated.sshCertificates.count) certificate(s) attached to \(updated.keyId).")
            }
            return .success
        }
    }
}

struct SSHCertRemoveCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(commandName: "remove", abstract: "Detach a certificate.")

    @OptionGroup var global: GlobalOptions
    @OptionGroup var credential: CredentialOptions
    @OptionGroup var file: CertificateFile

    func run() async throws {
        try await global.run { console in
            let blob = try file.blob()
            let client = try global.connect()
            defer { client.close() }
            let chosen = try await CredentialChoice.resolve(credential, client: client, purposes: [.ssh])
            let updated = try await client.removeSSHCertificate(keyId: chosen.keyId, certificate: blob)
            console.show(.object([("credential", updated.json)])) {
                console.say("\(updated.sshCertificates.count) certificate(s) attached to \(updated.keyId).")
            }
            return .success
        }
    }
}

struct SSHCertListCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "list", abstract: "Print the certificates attached to the credential, one OpenSSH line each."
    )

    @OptionGroup var global: GlobalOptions
    @OptionGroup var credential: CredentialOptions

    func run() async throws {
        try await global.run { console in
            let client = try global.connect()
            defer { client.close() }
            let chosen = try await CredentialChoice.resolve(credential, client: client, purposes: [.ssh])
            let certificates = chosen.sshCertificates.compactMap { blob in
                try? blob.withUnsafeBytes { bytes throws(SSHAgentMessageError) in try SSHCertificate(blob: bytes) }
            }
            console.show(.object([("sshCertificates", .array(certificates.map { .string($0.line(comment: nil)) }))])) {
                for certificate in certificates {
                    // A CA's key id and principals are the CA's text: escaped for the terminal.
                    let principals = certificate.principals.map { String(decoding: $0, as: UTF8.self) }.joined(separator: ",")
                    let keyId = String(decoding: certificate.keyId, as: UTF8.self)
                    console.say(certificate.line(comment: TerminalText.escaped("id=\(keyId) principals=\(principals)")))
                }
            }
            return .success
        }
    }
}
