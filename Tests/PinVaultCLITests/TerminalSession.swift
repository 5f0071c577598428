import Foundation
import PinVaultTestKit

/// `pinvault` on a pseudo-terminal of its own (Python's `pty`), as a person at a
/// terminal runs it: it answers each prompt (text ending in ": ") with the next
/// answer, or sends Ctrl-C instead of an answer that is nil, and returns everything
/// the terminal showed, the exit status, and whether echo was on at the end.
struct TerminalSession {
    /// What the terminal showed, the status, and the terminal's final ECHO flag.
    struct Transcript {
        var output: String
        var status: Int
        var echoOnAtEnd: Bool
    }

    static func run(_ arguments: [String], answers: [String?]) throws -> Transcript {
        let request: [String: Any] = [
            "argv": [PinVaultBinary.path] + arguments,
            "answers": answers.map { $0 as Any? ?? NSNull() },
        ]
        let result = try Subprocess.run(
            "/usr/bin/python3", ["-c", script],
            input: try JSONSerialization.data(withJSONObject: request),
            timeout: 30
        )
        guard result.status == 0,
              let reply = try JSONSerialization.jsonObject(with: Data(result.standardOutput.utf8)) as? [String: Any],
              let output = reply["output"] as? String, let status = reply["status"] as? Int,
              let echo = reply["echo"] as? Bool
        else { throw TestKitError("the pty driver failed: \(result)") }
        return Transcript(output: output, status: status, echoOnAtEnd: echo)
    }

    private static let script = #"""
    import json, os, pty, select, sys, termios, time
    request = json.load(sys.stdin)
    pid, master = pty.fork()
    if pid == 0:
        os.execv(request["argv"][0], request["argv"])
    answers = list(request["answers"])
    output = b""
    deadline = time.time() + 20
    while time.time() < deadline:
        ready, _, _ = select.select([master], [], [], 0.1)
        if not ready:
            continue
        try:
            chunk = os.read(master, 4096)
        except OSError:
            break
        if not chunk:
            break
        output += chunk
        if answers and output.endswith(b": "):
            answer = answers.pop(0)
            os.write(master, b"\x03" if answer is None else answer.encode() + b"\n")
    echo = bool(termios.tcgetattr(master)[3] & termios.ECHO)
    _, status = os.waitpid(pid, 0)
    code = os.waitstatus_to_exitcode(status)
    print(json.dumps({"output": output.decode(errors="replace"), "status": code, "echo": echo}))
    """#
}
