import ArgumentParser
import PinVaultClient

/// `pinvault register USER [--label LABEL] [--purpose PURPOSE] [--algorithm ed25519|p256]`, PURPOSE one of
/// `Credential.Purpose.registrable`.
struct RegisterCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "register",
        abstract: "Create a credential: a new key pair sealed under a new PIN.",
        discussion: """
            The PIN is asked twice at the terminal (once from --pin-stdin or --pin-fd) and must \
            meet the policy (pinvault policy). Prints the new key's id and public key, which a \
            relying party keeps to verify signatures.

            The purpose decides, for good, what the key may do: \(alternatives(purposes)), \
            authenticate by default (pinvault(1), KEY PURPOSES, says what each signs). \
            Another purpose needs another credential.

            The algorithm, also for good: ed25519 (the default) or p256 (ECDSA over NIST \
            P-256, for relying parties, ssh servers and PKCS#11 programs that know no \
            Ed25519).
            """
    )

    @OptionGroup var global: GlobalOptions

    @Argument(help: ArgumentHelp("The account name: an email, a username, an identity provider's id.", valueName: "user"))
    var user: String

    @Option(help: ArgumentHelp("Tells this credential apart from the user's others (an app, a relying party).", valueName: "label"))
    var label: String?

    @Option(
        help: ArgumentHelp("What the key is for: \(alternatives(purposes)).", valueName: "purpose"),
        completion: .list(purposes),
        transform: { name in
            guard let purpose = Credential.Purpose(rawValue: name), Credential.Purpose.registrable.contains(purpose) else {
                throw ValidationError("--purpose is one of \(purposes.joined(separator: ", "))")
            }
            return purpose
        })
    var purpose: Credential.Purpose = .authenticate

    @Option(
        help: ArgumentHelp(
            "The key's algorithm: \(Credential.Algorithm.allCases.map(\.rawValue).joined(separator: " or ")).",
            valueName: "algorithm"),
        transform: { name in
            guard let algorithm = Credential.Algorithm(rawValue: name) else {
                throw ValidationError("--algorithm is one of \(Credential.Algorithm.allCases.map(\.rawValue).joined(separator: ", "))")
            }
            return algorithm
        })
    var algorithm: Credential.Algorithm = .default

    @OptionGroup var pins: PinOptions

    func run() async throws {
        try await global.run { console in
            let input = try pins.input()
            if input.isTerminal { try global.checkDaemon() }
            let pin = try await input.readNewPIN(prompt: "New PIN for \(user): ", policy: global.requirePolicy)
            let client = try global.connect()
            defer { client.close() }
            let credential = try await client.register(
                user: user, pin: pin, label: label, purpose: purpose, algorithm: algorithm)
            console.show(.object([("credential", credential.json)])) {
                console.say("Registered a credential for \(credential.user)\(credential.label.map { " (\($0))" } ?? "").")
                StandardStream.output.write(Table(headers: nil, rows: [
                    ["Key ID:", credential.keyId],
                    ["Purpose:", credential.purpose.rawValue],
                    ["Algorithm:", credential.algorithm.rawValue],
                    ["Public key:", WireText.base64(credential.publicKey)],
                ]).text)
                if credential.purpose == .ssh {
                    console.say("pinvault ssh-key \(credential.user) prints its line for authorized_keys and allowed_signers.")
                }
            }
            return .success
        }
    }
}

extension RegisterCommand {
    /// The purposes `--purpose` takes: every purpose but legacy, from the one list.
    static let purposes = Credential.Purpose.registrable.map(\.rawValue)

    /// "a, b or c".
    static func alternatives(_ names: [String]) -> String {
        guard let last = names.last, names.count > 1 else { return names.joined() }
        return names.dropLast().joined(separator: ", ") + " or " + last
    }
}
