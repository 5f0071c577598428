import PinVaultClient
import PinVaultSystem

/// An `SSH_ASKPASS` program, as ssh runs one: the question as its one argument, the
/// answer on its standard output and its exit status (non-zero: cancelled). A yes/no
/// question sets `SSH_ASKPASS_PROMPT=confirm` (OpenSSH 8.4 and later), answered by the
/// status alone; a notice sets `SSH_ASKPASS_PROMPT=none`.
///
/// Its argument is in /proc/PID/cmdline, which every uid may read: it says no more than
/// ssh tells its own askpass — which key (its comment and fingerprint), and after a
/// wrong PIN how many attempts are left — never the user, host or namespace a
/// signature is for (`PromptText.brief`; pinentry shows those).
struct Askpass: Prompt {
    let path: String
    let settings: PromptSettings

    var name: String { "SSH_ASKPASS \(path)" }

    func askPIN(_ text: PromptText, error: String?, isCancelled: @escaping @Sendable () -> Bool) -> PromptAnswer<PIN> {
        let question = (error.map { $0 + "\n" } ?? "") + text.brief + "\nPIN:"
        let process: PromptProcess
        switch start(question, kind: nil, isCancelled) {
        case .answered(let started): process = started
        case .declined: return .declined
        case .failed(let why): return .failed(why)
        }
        defer { process.finish() }
        do {
            try process.read { _ in false }  // to the end of its output
        } catch .ended {
            // done
        } catch {
            return .declined
        }
        guard process.exitStatus() == 0 else { return .declined }
        let pin: PIN? = process.received.withUnsafeBytes { bytes in
            var length = bytes.count
            while length > 0 && (bytes[length - 1] == UInt8(ascii: "\n") || bytes[length - 1] == UInt8(ascii: "\r")) {
                length -= 1
            }
            guard length > 0 else { return nil }
            return PIN(copying: UnsafeRawBufferPointer(rebasing: bytes[..<length]))
        }
        return pin.map { .answered($0) } ?? .declined
    }

    /// A yes is exit 0 with nothing, or `yes`, written — as OpenSSH's `ask_permission`
    /// reads it: an askpass that knows no `SSH_ASKPASS_PROMPT` shows a text field, and
    /// "no" typed into it must not pass for a yes.
    func confirm(_ text: PromptText, isCancelled: @escaping @Sendable () -> Bool) -> PromptAnswer<Void> {
        let process: PromptProcess
        switch start(text.brief, kind: "confirm", isCancelled) {
        case .answered(let started): process = started
        case .declined: return .declined
        case .failed(let why): return .failed(why)
        }
        defer { process.finish() }
        do {
            try process.read { _ in false }  // to the end of its output
        } catch .ended {
            // done
        } catch {
            return .declined
        }
        guard process.exitStatus() == 0 else { return .declined }
        let yes = process.received.withUnsafeBytes { bytes in
            var answer = Array(bytes)
            while let last = answer.last, last == UInt8(ascii: "\n") || last == UInt8(ascii: "\r") { answer.removeLast() }
            return answer.isEmpty || String(decoding: answer, as: UTF8.self).lowercased() == "yes"
        }
        return yes ? .answered(()) : .declined
    }

    func tell(_ message: String, isCancelled: @escaping @Sendable () -> Bool) -> PromptAnswer<Void> {
        switch start(message, kind: "none", isCancelled) {
        case .answered(let process):
            defer { process.finish() }
            _ = process.exitStatus()
            return .answered(())
        case .declined: return .declined
        case .failed(let why): return .failed(why)
        }
    }

    private func start(_ question: String, kind: String?, _ isCancelled: @escaping @Sendable () -> Bool) -> PromptAnswer<PromptProcess> {
        var environment = settings.environment
        if let kind { environment["SSH_ASKPASS_PROMPT"] = kind }
        let deadline = MonotonicClock.nanoseconds() + UInt64(settings.timeoutSeconds) * 1_000_000_000
        do throws(PromptProcess.Failure) {
            let process = try PromptProcess(
                path: path, arguments: [question], environment: environment, deadline: deadline, isCancelled: isCancelled
            )
            process.closeInput()
            return .answered(process)
        } catch .cancelled {
            return .declined
        } catch {
            return .failed(error.description)
        }
    }
}
