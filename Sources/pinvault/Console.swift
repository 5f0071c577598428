import PinVaultClient

/// What a command prints: the reply as JSON (`--json`) or as sentences and tables,
/// and failures as `pinvault: …` on stderr or as a JSON error document on stdout.
/// Sentences and notes are escaped for the terminal (`TerminalText`), as tables are:
/// they carry user names, labels and error texts that the daemon sent.
struct Console {
    /// Whether `--json` was given.
    let json: Bool

    /// Prints a result: `document` with `--json`, else what `human` says.
    func show(_ document: JSONValue, human: () -> Void) {
        if json {
            document.write(to: .output)
        } else {
            human()
        }
    }

    /// A line on stdout, escaped for the terminal.
    func say(_ line: String) {
        StandardStream.output.write(TerminalText.escaped(line) + "\n")
    }

    /// A message on stderr, such as a warning; with `--json` stdout stays one document.
    /// Each of its lines is escaped for the terminal: a message of several lines is
    /// built from escaped parts (`CommandFailure`).
    /// Tells of wrong PINs a right one cleared, as `login` tells of failed logins:
    /// nothing when there were none.
    func noteFailedAttemptsCleared(_ count: Int) {
        if let notice = FailedAttempts.notice(count) { note(notice) }
    }

    func note(_ message: String) {
        let lines = message.split(separator: "\n", omittingEmptySubsequences: false).map { TerminalText.escaped(String($0)) }
        StandardStream.error.write("pinvault: " + lines.joined(separator: "\n") + "\n")
    }

    /// Reports a failure: `{"error": …, "parameters": …}` on stdout with `--json`,
    /// else `pinvault: message` on stderr.
    func report(_ failure: CommandFailure) {
        if json {
            failure.json.write(to: .output)
        } else {
            note(failure.message)
        }
    }
}
