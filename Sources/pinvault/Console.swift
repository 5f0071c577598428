/// What a command prints: the reply as JSON (`--json`) or as sentences and tables,
/// and failures as `pinvault: …` on stderr or as a JSON error document on stdout.
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

    /// A line on stdout.
    func say(_ line: String) {
        StandardStream.output.write(line + "\n")
    }

    /// A line on stderr, such as a warning; with `--json` stdout stays one document.
    func note(_ line: String) {
        StandardStream.error.write("pinvault: " + line + "\n")
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
