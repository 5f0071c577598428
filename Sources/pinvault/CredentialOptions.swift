import ArgumentParser

/// The credential a command acts on: a user's only one, the one `--key-id` or
/// `--label` names, or (at a terminal) the one picked from a list.
struct CredentialOptions: ParsableArguments {
    @Argument(help: ArgumentHelp("The account name the credential belongs to.", valueName: "user"))
    var user: String

    @Option(help: ArgumentHelp(
        "Which of the user's credentials (32 hex digits); needed only when the user holds several.",
        valueName: "key-id"
    ))
    var keyId: String?

    @Option(help: ArgumentHelp(
        "Which of the user's credentials, by the label it was registered with (pinvault list shows them).",
        valueName: "label"
    ))
    var label: String?

    func validate() throws {
        if keyId != nil && label != nil { throw ValidationError("--key-id and --label exclude each other") }
    }
}
