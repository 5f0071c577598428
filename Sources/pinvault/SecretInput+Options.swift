import ArgumentParser
import Glibc

extension SecretInput {
    /// Checks a pair of `--…-stdin` / `--…-fd N` options: at most one, and an open fd.
    static func validate(stdin: Bool, fd: Int32?, stdinOption: String, fdOption: String) throws {
        guard let fd else { return }
        if stdin { throw ValidationError("\(stdinOption) and \(fdOption) exclude each other") }
        guard fd >= 0, fcntl(fd, F_GETFD) != -1 else {
            throw ValidationError("\(fdOption) \(fd): no such open file descriptor")
        }
    }

    /// Standard input, the fd, or else the terminal; neither is a usage error.
    static func choose(stdin: Bool, fd: Int32?, what: String, options: String) throws(CommandFailure) -> SecretInput {
        if stdin { return .descriptor(STDIN_FILENO) }
        if let fd { return .descriptor(fd) }
        guard let terminal = Terminal.open() else {
            throw .usage("no terminal to read the \(what) from: pass \(options)")
        }
        return .terminal(terminal)
    }

    /// Whether secrets are typed by a person (so the daemon is checked first).
    var isTerminal: Bool {
        if case .terminal = self { return true }
        return false
    }
}
