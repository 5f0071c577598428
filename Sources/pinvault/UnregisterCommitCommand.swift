import ArgumentParser
import PinVaultClient

/// `pinvault unregister commit --key-id ID`
struct UnregisterCommitCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "commit",
        abstract: "Delete the credential of a pending unregistration, with its token.",
        discussion: "The token is typed at the terminal without echo, or read from --token-stdin or --token-fd."
    )

    @OptionGroup var global: GlobalOptions

    @Option(help: ArgumentHelp("The credential being unregistered (32 hex digits).", valueName: "key-id"))
    var keyId: String

    @OptionGroup var tokens: TokenOptions

    func run() async throws {
        try await UnregisterTokenReader.settle(keyId: keyId, tokens: tokens, global: global,
                                               done: "Unregistered \(keyId): the credential is deleted.") {
            try await $0.commitUnregister(keyId: keyId, token: $1)
        }
    }
}

/// `pinvault unregister abort --key-id ID`
struct UnregisterAbortCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "abort",
        abstract: "Cancel a pending unregistration, with its token; the credential is active again.",
        discussion: "The token is typed at the terminal without echo, or read from --token-stdin or --token-fd."
    )

    @OptionGroup var global: GlobalOptions

    @Option(help: ArgumentHelp("The credential being unregistered (32 hex digits).", valueName: "key-id"))
    var keyId: String

    @OptionGroup var tokens: TokenOptions

    func run() async throws {
        try await UnregisterTokenReader.settle(keyId: keyId, tokens: tokens, global: global,
                                               done: "Cancelled the unregistration of \(keyId): the credential is active again.") {
            try await $0.abortUnregister(keyId: keyId, token: $1)
        }
    }
}

/// What `commit` and `abort` share: the token, the call, the answer.
enum UnregisterTokenReader {
    /// Reads the token, makes `call` with it, and says `done` (an empty object in JSON).
    static func settle(
        keyId: String, tokens: TokenOptions, global: GlobalOptions, done: String,
        _ call: (PinVaultClient, UnregistrationToken) async throws -> Void
    ) async throws {
        try await global.run { console in
            let token = try read(tokens, global: global)
            defer { token.wipe() }
            let client = try global.connect()
            defer { client.close() }
            try await call(client, token)
            console.show(.object([])) { console.say(done) }
            return .success
        }
    }

    static func read(_ tokens: TokenOptions, global: GlobalOptions) throws(CommandFailure) -> UnregistrationToken {
        let input = try tokens.input()
        if input.isTerminal { try global.checkDaemon() }
        return try input.readToken(prompt: "Unregistration token: ")
    }
}
