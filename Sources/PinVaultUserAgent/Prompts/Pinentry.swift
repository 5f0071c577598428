import PinVaultClient
import PinVaultCrypto
import PinVaultSystem

/// A pinentry program (GnuPG's pinentry-gnome3, -qt, -curses, -tty …), spoken to in the
/// Assuan protocol: each command one line, answered by `OK` or `ERR`, data in `D` lines
/// with `%`, CR and LF percent-escaped. One program per question, ended with `BYE`.
///
///     OPTION ttyname=…  SETTITLE  SETDESC  SETPROMPT  [SETERROR]  SETTIMEOUT  GETPIN
///     SETDESC  SETOK  SETCANCEL  CONFIRM                                 (yes or no)
///     SETDESC  MESSAGE                                                   (a notice)
///
/// The PIN goes from the program's `D` line, read into locked memory, straight into a
/// `PIN`: percent-decoded there, never a `String`.
struct Pinentry: Prompt {
    let path: String
    let settings: PromptSettings

    var name: String { "pinentry \(path)" }

    func askPIN(_ text: PromptText, error: String?, isCancelled: @escaping @Sendable () -> Bool) -> PromptAnswer<PIN> {
        converse(isCancelled) { session throws(AssuanSession.Failure) in
            var commands = ["SETDESC " + escape(text.full), "SETPROMPT PIN:"]
            if let error { commands.append("SETERROR " + escape(error)) }
            try session.send(commands)
            return try session.getPIN()
        }
    }

    func confirm(_ text: PromptText, isCancelled: @escaping @Sendable () -> Bool) -> PromptAnswer<Void> {
        converse(isCancelled) { session throws(AssuanSession.Failure) in
            try session.send(["SETDESC " + escape(text.full), "SETOK Allow", "SETCANCEL Deny", "CONFIRM"])
        }
    }

    func tell(_ message: String, isCancelled: @escaping @Sendable () -> Bool) -> PromptAnswer<Void> {
        converse(isCancelled) { session throws(AssuanSession.Failure) in
            try session.send(["SETDESC " + escape(message), "MESSAGE"])
        }
    }

    /// One conversation: started, `body`, ended; a refusal the user made (cancel, no,
    /// pinentry's own timeout) is `.declined`, anything else that kept it from asking
    /// (no terminal, no display, a broken program) is `.failed` with pinentry's words.
    private func converse<T>(
        _ isCancelled: @escaping @Sendable () -> Bool, _ body: (AssuanSession) throws(AssuanSession.Failure) -> T
    ) -> PromptAnswer<T> {
        let session: AssuanSession
        switch start(isCancelled) {
        case .answered(let started): session = started
        case .declined: return .declined
        case .failed(let why): return .failed(why)
        }
        defer { session.end() }
        do throws(AssuanSession.Failure) {
            return .answered(try body(session))
        } catch {
            switch error {
            case .refused(let code, _) where AssuanSession.declines(code): return .declined
            case .refused(_, let line): return .failed("it answered \(line)")
            case .broken(let failure) where failure == .cancelled || failure == .timedOut: return .declined
            case .broken(let failure): return .failed(failure.description)
            case .empty: return .declined
            }
        }
    }

    /// Starts the program, reads its greeting and sets the options every question shares.
    private func start(_ isCancelled: @escaping @Sendable () -> Bool) -> PromptAnswer<AssuanSession> {
        let deadline = MonotonicClock.nanoseconds() + UInt64(settings.timeoutSeconds) * 1_000_000_000
        let process: PromptProcess
        do throws(PromptProcess.Failure) {
            process = try PromptProcess(
                path: path, arguments: [], environment: settings.environment, deadline: deadline, isCancelled: isCancelled
            )
        } catch .cancelled {
            return .declined
        } catch {
            return .failed(error.description)
        }
        let session = AssuanSession(process: process)
        var options = ["SETTITLE PinVault", "SETTIMEOUT \(settings.timeoutSeconds)"]
        if let tty = settings.tty { options.append("OPTION ttyname=" + escape(tty)) }
        if let term = settings.term { options.append("OPTION ttytype=" + escape(term)) }
        do throws(AssuanSession.Failure) {
            try session.expectOK()
        } catch {
            session.end()
            if case .broken(let failure) = error, failure == .cancelled { return .declined }
            return .failed("no greeting: \(error)")
        }
        for option in options {
            // An option a pinentry does not know (ERR) does not end the conversation.
            do throws(AssuanSession.Failure) {
                try session.send([option])
            } catch .refused {
                continue
            } catch {
                session.end()
                if case .broken(let failure) = error, failure == .cancelled { return .declined }
                return .failed("\(error)")
            }
        }
        return .answered(session)
    }

    /// Assuan's escaping of a command's argument: `%`, CR and LF as `%25`, `%0D`, `%0A`;
    /// cut, whole characters at a time, to what fits an Assuan line (1000 bytes with
    /// the command) — a pinentry answers a longer one `ERR Line too long`.
    private func escape(_ text: String) -> String {
        var escaped = ""
        for character in text {
            let piece = switch character {
            case "%": "%25"
            case "\r": "%0D"
            case "\n": "%0A"
            case "\r\n": "%0D%0A"
            default: String(character)
            }
            guard escaped.utf8.count + piece.utf8.count <= Self.maxArgumentBytes else { break }
            escaped += piece
        }
        return escaped
    }

    /// An argument's room in one Assuan line, its command and the line end aside.
    static let maxArgumentBytes = 900
}

/// One pinentry conversation.
final class AssuanSession {
    enum Failure: Error, CustomStringConvertible {
        /// The program answered ERR: a refusal (cancel, a timeout of its own, an option
        /// it does not know, no terminal to ask on): its error code and line.
        case refused(code: UInt32, line: String)
        /// It ended, timed out, was abandoned or could not be written to.
        case broken(PromptProcess.Failure)
        /// It answered GETPIN with nothing, or with more than any PIN.
        case empty

        var description: String {
            switch self {
            case .refused(_, let line): "it answered \(line)"
            case .broken(let failure): failure.description
            case .empty: "an empty answer"
            }
        }
    }

    /// Whether an ERR code (libgpg-error's: the source in the top byte, the code in the
    /// low 16 bits) is the user's refusal rather than a failure to ask:
    /// GPG_ERR_TIMEOUT (62, pinentry's own timeout), GPG_ERR_CANCELED (99),
    /// GPG_ERR_NOT_CONFIRMED (114), GPG_ERR_FULLY_CANCELED (198).
    static func declines(_ code: UInt32) -> Bool {
        [62, 99, 114, 198].contains(code & 0xffff)
    }

    private let process: PromptProcess

    init(process: PromptProcess) {
        self.process = process
    }

    /// Says BYE and lets the program leave on its own (as a pinentry does at once);
    /// the answer it gave goes on meanwhile.
    func end() {
        try? process.write(Array("BYE\n".utf8))
        process.letExit()
    }

    /// Sends each command in turn, each answered OK.
    func send(_ commands: [String]) throws(Failure) {
        for command in commands {
            do {
                try process.write(Array((command + "\n").utf8))
            } catch {
                throw .broken(error)
            }
            try expectOK()
        }
    }

    /// Reads lines up to the answer: OK (returns), ERR (`.refused`). Status and comment
    /// lines are skipped; a `D` line here is nothing anyone asked for.
    func expectOK() throws(Failure) {
        while true {
            var fits = true
            switch try nextLine(fits: &fits) {
            case .ok: return
            case .err(let code, let line): throw .refused(code: code, line: line)
            case .data, .other: continue
            }
        }
    }

    /// GETPIN: the `D` lines, percent-decoded into a `PIN` in secret memory, then OK.
    func getPIN() throws(Failure) -> PIN {
        do {
            try process.write(Array("GETPIN\n".utf8))
        } catch {
            throw .broken(error)
        }
        guard let decoded = try? SecretBytes(capacity: Self.maxPINBytes) else { throw .broken(.system("out of secret memory")) }
        defer { decoded.wipe() }
        var fits = true
        while true {
            switch try nextLine(decodingDataInto: decoded, fits: &fits) {
            case .ok:
                // An empty answer is no PIN (as a cancel); one longer than any PIN is not
                // cut to size and sent, where it would count as a wrong one.
                guard fits, decoded.count > 0 else { throw .empty }
                return decoded.withUnsafeBytes { bytes in PIN(copying: bytes) }
            case .err(let code, let line):
                throw .refused(code: code, line: line)
            case .data, .other:
                continue
            }
        }
    }

    private enum Line { case ok, err(UInt32, String), data, other }

    /// The longest PIN a pinentry may give (the daemon's limit is shorter).
    static let maxPINBytes = 1024

    /// Reads one line (up to LF) of the program's output and consumes it, zeroing it.
    /// A `D` line's data is percent-decoded into `data`.
    private func nextLine(decodingDataInto data: SecretBytes? = nil, fits: inout Bool) throws(Failure) -> Line {
        do {
            try process.read { $0.contains(UInt8(ascii: "\n")) }
        } catch {
            throw .broken(error)
        }
        let (kind, length): (Line, Int) = process.received.withUnsafeBytes { bytes in
            let end = bytes.firstIndex(of: UInt8(ascii: "\n")) ?? bytes.count - 1
            let line = UnsafeRawBufferPointer(rebasing: bytes[..<end])
            if line.starts(with: "OK".utf8) && (line.count == 2 || line[2] == UInt8(ascii: " ")) { return (.ok, end + 1) }
            if line.starts(with: "ERR".utf8) {
                // `ERR code text`: never a secret (the PIN comes in D lines alone).
                let words = line.split(separator: UInt8(ascii: " "), maxSplits: 2)
                let code = words.count > 1 ? UInt32(String(decoding: words[1], as: UTF8.self)) ?? 0 : 0
                return (.err(code, KeyDescription.printable(Array(line))), end + 1)
            }
            if line.starts(with: "D ".utf8) {
                if let data, !Self.percentDecode(UnsafeRawBufferPointer(rebasing: line.dropFirst(2)), into: data) { fits = false }
                return (.data, end + 1)
            }
            return (.other, end + 1)
        }
        process.consume(length)
        return kind
    }

    /// Appends `escaped` to `output`, each `%XX` as its byte; false when it did not fit.
    private static func percentDecode(_ escaped: UnsafeRawBufferPointer, into output: SecretBytes) -> Bool {
        var index = 0
        while index < escaped.count {
            var byte = escaped[index]
            if byte == UInt8(ascii: "%"), index + 2 < escaped.count,
               let high = hexValue(escaped[index + 1]), let low = hexValue(escaped[index + 2]) {
                byte = high << 4 | low
                index += 2
            }
            guard output.append(byte) else { return false }
            index += 1
        }
        return true
    }

    private static func hexValue(_ digit: UInt8) -> UInt8? {
        switch digit {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): digit - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): digit - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): digit - UInt8(ascii: "A") + 10
        default: nil
        }
    }
}
