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
        try await global.run { console in
            let token = try UnregisterTokenReader.read(tokens, global: global)
            defer { token.wipe() }
            let client = try global.connect()
            defer { client.close() }
            try await client.commitUnregister(keyId: keyId, token: token)
            console.show(.object([])) { console.say("Unregistered \(keyId): the credential is deleted.") }
            return .success
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
        try await global.run { console in
            let token = try UnregisterTokenReader.read(tokens, global: global)
            defer { token.wipe() }
            let client = try global.connect()
            defer { client.close() }
            try await client.abortUnregister(keyId: keyId, token: token)
            console.show(.object([])) { console.say("Cancelled the unregistration of \(keyId): the credential is active again.") }
            return .success
        }
    }
}

/// Reads the token for `commit` and `abort`.
enum UnregisterTokenReader {
    static func read(_ tokens: TokenOptions, global: GlobalOptions) throws(CommandFailure) -> UnregistrationToken {
        let input = try tokens.input()
        if input.isTerminal { try global.checkDaemon() }
        return try input.readToken(prompt: "Unregistration token: ")
    }
}
