import Foundation
import Glibc

/// An `SSH_ASKPASS` program that answers, in turn, the lines a test gives it — a PIN,
/// `cancel`, `sleep N` (answering nothing; its pid goes to `sleeping` first, so a test
/// can see it killed), `yes` or `no` — and records every question it was asked, each as
/// its argument with `[pin]`, `[confirm]` or `[none]` (`SSH_ASKPASS_PROMPT`) before it.
/// It and its files live in `directory`, owned by `owner` when the prompting program
/// runs as another uid.
public struct ScriptedAskpass {
    public let directory: String
    public var path: String { directory + "/askpass" }
    private let owner: (uid: UInt32, gid: UInt32)?

    public init(directory: String, owner: (uid: UInt32, gid: UInt32)? = nil) throws {
        self.directory = directory
        self.owner = owner
        try Self.script.write(toFile: path, atomically: true, encoding: .utf8)
        chmod(path, 0o755)
        try own(path)
    }

    /// The answers, one per question, in order (replacing any given before; the count
    /// of questions asked goes on).
    public func answer(_ answers: [String]) throws {
        let file = directory + "/answers"
        let asked = (try? String(contentsOfFile: directory + "/count", encoding: .utf8))
            .flatMap { Int($0.trimmingCharacters(in: .whitespacesAndNewlines)) } ?? 0
        try (Array(repeating: "", count: asked) + answers).map { $0 + "\n" }.joined().write(toFile: file, atomically: true, encoding: .utf8)
        try own(file)
    }

    /// The questions asked so far.
    public var prompts: [String] {
        let text = (try? String(contentsOfFile: directory + "/prompts", encoding: .utf8)) ?? ""
        return text.components(separatedBy: "\u{1e}\n").filter { !$0.isEmpty }
    }

    /// The pid of the prompt answering `sleep N`, once it runs.
    public var sleepingPid: pid_t? {
        (try? String(contentsOfFile: directory + "/sleeping", encoding: .utf8))
            .flatMap { pid_t($0.trimmingCharacters(in: .whitespacesAndNewlines)) }
    }

    private func own(_ file: String) throws {
        guard let owner else { return }
        guard chown(file, owner.uid, owner.gid) == 0 else { throw TestKitError("chown \(file): errno \(errno)") }
    }

    static let script = """
        #!/bin/sh
        dir=$(dirname "$0")
        n=$(cat "$dir/count" 2>/dev/null || echo 0); n=$((n + 1)); echo "$n" > "$dir/count"
        printf '[%s]%s\\036\\n' "${SSH_ASKPASS_PROMPT:-pin}" "$1" >> "$dir/prompts"
        answer=$(sed -n "${n}p" "$dir/answers" 2>/dev/null)
        case "$answer" in
            cancel|no|"") exit 1 ;;
            yes) exit 0 ;;
            sleep*) echo $$ > "$dir/sleeping"; exec sleep ${answer#sleep } ;;
            *) printf '%s\\n' "$answer" ;;
        esac

        """
}
