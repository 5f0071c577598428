import ArgumentParser

/// The credential a command acts on: a user's only one, or the one `--key-id` names.
struct CredentialOptions: ParsableArguments {
    @Argument(help: ArgumentHelp("The account name the credential belongs to.", valueName: "user"))
    var user: String

    @Option(help: ArgumentHelp(
        "Which of the user's credentials (32 hex digits); needed only when the user holds several.",
        valueName: "key-id"
    ))
    var keyId: String?
}
