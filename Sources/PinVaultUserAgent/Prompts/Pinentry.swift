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

    func askPIN(description: String, error: String?, isCancelled: @escaping @Sendable () -> Bool) -> PIN? {
        guard let session = start(isCancelled) else { return nil }
        defer { session.end() }
        var commands = ["SETDESC " + escape(description), "SETPROMPT PIN:"]
        if let error { commands.append("SETERROR " + escape(error)) }
        guard (try? session.send(commands)) != nil else { return nil }
        return try? session.getPIN()
    }

    func confirm(description: String, isCancelled: @escaping @Sendable () -> Bool) -> Bool {
        guard let session = start(isCancelled) else { return false }
        defer { session.end() }
        let commands = ["SETDESC " + escape(description), "SETOK Allow", "SETCANCEL Deny", "CONFIRM"]
        return (try? session.send(commands)) != nil
    }

    func tell(_ message: String, isCancelled: @escaping @Sendable () -> Bool) {
        guard let session = start(isCancelled) else { return }
        defer { session.end() }
        _ = try? session.send(["SETDESC " + escape(message), "MESSAGE"])
    }

    /// Starts the program, reads its greeting and sets the options every question shares.
    private func start(_ isCancelled: @escaping @Sendable () -> Bool) -> AssuanSession? {
        let deadline = MonotonicClock.nanoseconds() + UInt64(settings.timeoutSeconds) * 1_000_000_000
        guard let process = try? PromptProcess(
            path: path, arguments: [], environment: settings.environment, deadline: deadline, isCancelled: isCancelled
        ) else { return nil }
        let session = AssuanSession(process: process)
        var options = ["SETTITLE PinVault", "SETTIMEOUT \(settings.timeoutSeconds)"]
        if let tty = settings.tty { options.append("OPTION ttyname=" + escape(tty)) }
        if let term = settings.term { options.append("OPTION ttytype=" + escape(term)) }
        guard (try? session.expectOK()) != nil else {
            session.end()
            return nil
        }
        for option in options {
            // An option a pinentry does not know (ERR) does not end the conversation.
            do {
                try session.send([option])
            } catch .refused {
                continue
            } catch {
                session.end()
                return nil
            }
        }
        return session
    }

    /// Assuan's escaping of a command's argument: `%`, CR and LF as `%25`, `%0D`, `%0A`.
    private func escape(_ text: String) -> String {
        var escaped = ""
        for scalar in text.unicodeScalars {
            switch scalar {
            case "%": escaped += "%25"
            case "\r": escaped += "%0D"
            case "\n": escaped += "%0A"
            default: escaped.unicodeScalars.append(scalar)
            }
        }
        return escaped
    }
}

/// One pinentry conversation.
final class AssuanSession {
    enum Failure: Error {
        /// The program answered ERR: a refusal (cancel, a timeout of its own, an option
        /// it does not know).
        case refused
        /// It ended, timed out, was abandoned or spoke something else.
        case broken
    }

    private let process: PromptProcess

    init(process: PromptProcess) {
        self.process = process
    }

    /// Says BYE and lets the program leave on its own (as a pinentry does at once),
    /// ending it only at the prompt's deadline or when the request is abandoned.
    func end() {
        try? process.write(Array("BYE\n".utf8))
        _ = process.exitStatus()
    }

    /// Sends each command in turn, each answered OK.
    func send(_ commands: [String]) throws(Failure) {
        for command in commands {
            do {
                try process.write(Array((command + "\n").utf8))
            } catch {
                throw .broken
            }
            try expectOK()
        }
    }

    /// Reads lines up to the answer: OK (returns), ERR (`.refused`). Status and comment
    /// lines are skipped; a `D` line here is nothing anyone asked for.
    func expectOK() throws(Failure) {
        while true {
            switch try nextLine() {
            case .ok: return
            case .err: throw .refused
            case .data, .other: continue
            }
        }
    }

    /// GETPIN: the `D` lines, percent-decoded into a `PIN` in secret memory, then OK.
    func getPIN() throws(Failure) -> PIN {
        do {
            try process.write(Array("GETPIN\n".utf8))
        } catch {
            throw .broken
        }
        guard let decoded = try? SecretBytes(capacity: 1024) else { throw .broken }
        defer { decoded.wipe() }
        while true {
            switch try nextLine(decodingDataInto: decoded) {
            case .ok:
                return decoded.withUnsafeBytes { bytes in PIN(copying: bytes) }
            case .err:
                throw .refused
            case .data, .other:
                continue
            }
        }
    }

    private enum Line { case ok, err, data, other }

    /// Reads one line (up to LF) of the program's output and consumes it, zeroing it.
    /// A `D` line's data is percent-decoded into `data`.
    private func nextLine(decodingDataInto data: SecretBytes? = nil) throws(Failure) -> Line {
        do {
            try process.read { $0.contains(UInt8(ascii: "\n")) }
        } catch {
            throw .broken
        }
        let (kind, length): (Line, Int) = process.received.withUnsafeBytes { bytes in
            let end = bytes.firstIndex(of: UInt8(ascii: "\n")) ?? bytes.count - 1
            let line = UnsafeRawBufferPointer(rebasing: bytes[..<end])
            if line.starts(with: "OK".utf8) && (line.count == 2 || line[2] == UInt8(ascii: " ")) { return (.ok, end + 1) }
            if line.starts(with: "ERR".utf8) { return (.err, end + 1) }
            if line.starts(with: "D ".utf8) {
                if let data { Self.percentDecode(UnsafeRawBufferPointer(rebasing: line.dropFirst(2)), into: data) }
                return (.data, end + 1)
            }
            return (.other, end + 1)
        }
        process.consume(length)
        return kind
    }

    /// Appends `escaped` to `output`, each `%XX` as its byte.
    private static func percentDecode(_ escaped: UnsafeRawBufferPointer, into output: SecretBytes) {
        var index = 0
        while index < escaped.count {
            var byte = escaped[index]
            if byte == UInt8(ascii: "%"), index + 2 < escaped.count,
               let high = hexValue(escaped[index + 1]), let low = hexValue(escaped[index + 2]) {
                byte = high << 4 | low
                index += 2
            }
            guard output.append(byte) else { return }
            index += 1
        }
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
