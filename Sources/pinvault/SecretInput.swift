import Glibc
import PinVaultClient

/// Where a command reads its secrets (PINs, a token): the terminal without echo, or
/// one line per secret from a file descriptor (`--pin-stdin`, `--pin-fd N`, …), with
/// echo off too when that descriptor is a terminal.
enum SecretInput {
    case terminal(Terminal)
    case descriptor(Int32)

    /// The largest PIN read, in bytes (the daemon's `policy.max_length` is far below).
    static let pinCapacity = 256
    /// The largest token read: the daemon's are 43 characters.
    static let tokenCapacity = 64

    /// Reads one PIN, asking with `prompt` on a terminal. An empty PIN is a usage error
    /// (nothing is sent, so no attempt is spent on it) unless `allowingEmpty`, for
    /// `check-pin`, where the policy answers it.
    func readPIN(prompt: String, allowingEmpty: Bool = false) throws(CommandFailure) -> PIN {
        let pin: PIN
        do {
            pin = try PIN(capacity: Self.pinCapacity + 1) { buffer in try readLine(prompt: prompt, into: buffer) }
        } catch {
            throw failure(error, what: "PIN")
        }
        guard allowingEmpty || pin.byteCount > 0 else {
            pin.wipe()
            throw .usage("the PIN from \(source) is empty")
        }
        return pin
    }

    /// Reads a new PIN: on a terminal twice, the two compared in constant time; from a
    /// descriptor once. On a terminal, `policy` sees a copy of the first entry before
    /// the second is asked (the daemon's CheckPin): a PIN the policy refuses is not
    /// typed twice.
    func readNewPIN(prompt: String, policy: (PIN) async throws -> Void) async throws -> PIN {
        let pin = try readPIN(prompt: prompt)
        guard case .terminal = self else { return pin }
        do {
            try await policy(pin.copy())
        } catch {
            pin.wipe()
            throw error
        }
        let repeated = try readPIN(prompt: "Repeat " + prompt.prefix(1).lowercased() + prompt.dropFirst())
        defer { repeated.wipe() }
        guard pin.constantTimeEquals(repeated) else {
            pin.wipe()
            throw CommandFailure.pinsDiffer
        }
        return pin
    }

    /// Reads the unregistration token, asking with `prompt` on a terminal.
    func readToken(prompt: String) throws(CommandFailure) -> UnregistrationToken {
        do {
            return try UnregistrationToken(capacity: Self.tokenCapacity + 1) { buffer in
                try readLine(prompt: prompt, into: buffer)
            }
        } catch {
            throw failure(error, what: "token")
        }
    }

    private func readLine(prompt: String, into buffer: UnsafeMutableRawBufferPointer) throws(SecretLine.Failure) -> Int {
        switch self {
        case .terminal(let terminal): try terminal.readSecret(prompt: prompt, into: buffer)
        case .descriptor(let fd):
            // A person typing into --pin-stdin on a terminal gets echo off too.
            if let terminal = Terminal.borrowing(fd) {
                try terminal.readSecret(prompt: nil, into: buffer)
            } else {
                try SecretLine.read(from: fd, into: buffer)
            }
        }
    }

    /// Where the secrets come from, in words.
    private var source: String {
        switch self {
        case .terminal: "the terminal"
        case .descriptor(STDIN_FILENO): "standard input"
        case .descriptor(let fd): "file descriptor \(fd)"
        }
    }

    private func failure(_ error: any Error, what: String) -> CommandFailure {
        guard let error = error as? SecretLine.Failure else { return .input("cannot read the \(what) from \(source)") }
        return switch error {
        case .endOfInput: .usage("no \(what) on \(source)")
        case .tooLong(let limit): .usage("the \(what) on \(source) is longer than \(limit) bytes")
        case .readFailed(let code): .usage("cannot read the \(what) from \(source): \(String(cString: strerror(code)))")
        }
    }
}
