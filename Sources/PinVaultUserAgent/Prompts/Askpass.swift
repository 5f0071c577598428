import PinVaultClient
import PinVaultSystem

/// An `SSH_ASKPASS` program, as ssh runs one: the question as its one argument, the
/// answer on its standard output and its exit status (non-zero: cancelled). A yes/no
/// question sets `SSH_ASKPASS_PROMPT=confirm` (OpenSSH 8.4 and later), answered by the
/// status alone; a notice sets `SSH_ASKPASS_PROMPT=none`.
struct Askpass: Prompt {
    let path: String
    let settings: PromptSettings

    func askPIN(description: String, error: String?, isCancelled: @escaping @Sendable () -> Bool) -> PIN? {
        let question = (error.map { $0 + "\n" } ?? "") + description + "\nPIN:"
        guard let process = start(question, kind: nil, isCancelled) else { return nil }
        defer { process.finish() }
        do {
            try process.read { _ in false }  // to the end of its output
        } catch .ended {
            // done
        } catch {
            return nil
        }
        guard process.exitStatus() == 0 else { return nil }
        return process.received.withUnsafeBytes { bytes in
            var length = bytes.count
            while length > 0 && (bytes[length - 1] == UInt8(ascii: "\n") || bytes[length - 1] == UInt8(ascii: "\r")) {
                length -= 1
            }
            guard length > 0 else { return nil }
            return PIN(copying: UnsafeRawBufferPointer(rebasing: bytes[..<length]))
        }
    }

    /// A yes is exit 0 with nothing, or `yes`, written — as OpenSSH's `ask_permission`
    /// reads it: an askpass that knows no `SSH_ASKPASS_PROMPT` shows a text field, and
    /// "no" typed into it must not pass for a yes.
    func confirm(description: String, isCancelled: @escaping @Sendable () -> Bool) -> Bool {
        guard let process = start(description, kind: "confirm", isCancelled) else { return false }
        defer { process.finish() }
        do {
            try process.read { _ in false }  // to the end of its output
        } catch .ended {
            // done
        } catch {
            return false
        }
        guard process.exitStatus() == 0 else { return false }
        return process.received.withUnsafeBytes { bytes in
            var answer = Array(bytes)
            while let last = answer.last, last == UInt8(ascii: "\n") || last == UInt8(ascii: "\r") { answer.removeLast() }
            return answer.isEmpty || String(decoding: answer, as: UTF8.self).lowercased() == "yes"
        }
    }

    func tell(_ message: String, isCancelled: @escaping @Sendable () -> Bool) {
        guard let process = start(message, kind: "none", isCancelled) else { return }
        defer { process.finish() }
        _ = process.exitStatus()
    }

    private func start(_ question: String, kind: String?, _ isCancelled: @escaping @Sendable () -> Bool) -> PromptProcess? {
        var environment = settings.environment
        if let kind { environment["SSH_ASKPASS_PROMPT"] = kind }
        let deadline = MonotonicClock.nanoseconds() + UInt64(settings.timeoutSeconds) * 1_000_000_000
        let process = try? PromptProcess(
            path: path, arguments: [question], environment: environment, deadline: deadline, isCancelled: isCancelled
        )
        process?.closeInput()
        return process
    }
}
