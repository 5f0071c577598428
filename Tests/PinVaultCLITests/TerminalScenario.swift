import Foundation
import PinVaultTestKit

/// `pinvault` on a pseudo-terminal (Python's `pty`) in the two situations that
/// `TerminalSession` cannot play: job control at a PIN prompt, and a PIN typed into
/// `--pin-stdin` when standard input is that terminal.
enum TerminalScenario {
    /// What the terminal showed and what its settings were along the way.
    struct Transcript {
        var output: String
        var status: Int
        /// Whether the process was seen stopped after Ctrl-Z.
        var stopped: Bool
        /// Whether echo was on while it was stopped (a shell then reads commands).
        var echoWhileStopped: Bool
        /// Whether echo was off once `pinvault` was continued, or read from stdin.
        var echoOffWhileReading: Bool
    }

    /// Answers the first prompt with Ctrl-Z, plays the shell (its own settings, echo on,
    /// while the job is stopped; then `fg`: SIGCONT), waits for the prompt to be shown
    /// again and types `pin`. `pinvault` runs as the foreground process group of a
    /// session whose leader waits for it, as under a shell, so that Ctrl-Z stops it.
    static func stopAndContinue(_ arguments: [String], pin: String) throws -> Transcript {
        try run(stopScript, arguments: arguments, pin: pin)
    }

    /// Runs `pinvault` with stdin on the terminal, waits (at most 5 s) for echo to go
    /// off, and types `pin` without any prompt.
    static func typeIntoStandardInput(_ arguments: [String], pin: String) throws -> Transcript {
        try run(stdinScript, arguments: arguments, pin: pin)
    }

    private static func run(_ script: String, arguments: [String], pin: String) throws -> Transcript {
        let request: [String: Any] = ["argv": [PinVaultBinary.path] + arguments, "pin": pin]
        let result = try Subprocess.run(
            "/usr/bin/python3", ["-c", common + script],
            input: try JSONSerialization.data(withJSONObject: request),
            timeout: 40
        )
        guard result.status == 0,
              let reply = try JSONSerialization.jsonObject(with: Data(result.standardOutput.utf8)) as? [String: Any],
              let output = reply["output"] as? String, let status = reply["status"] as? Int
        else { throw TestKitError("the pty driver failed: \(result)") }
        return Transcript(
            output: output, status: status,
            stopped: reply["stopped"] as? Bool ?? false,
            echoWhileStopped: reply["echoWhileStopped"] as? Bool ?? false,
            echoOffWhileReading: reply["echoOffWhileReading"] as? Bool ?? false
        )
    }

    /// Reading the terminal until a condition holds, and the report.
    private static let common = #"""
    import json, os, pty, select, signal, sys, termios, time
    request = json.load(sys.stdin)
    output = b""
    def read_until(master, done, seconds):
        global output
        deadline = time.time() + seconds
        while time.time() < deadline and not done():
            ready, _, _ = select.select([master], [], [], 0.05)
            if ready:
                try:
                    chunk = os.read(master, 4096)
                except OSError:
                    return
                if not chunk:
                    return
                output += chunk
    def echo_on(master):
        return bool(termios.tcgetattr(master)[3] & termios.ECHO)
    def finish(master, pid, report):
        read_until(master, lambda: False, 15)
        _, status = os.waitpid(pid, 0)
        report.update(output=output.decode(errors="replace"), status=os.waitstatus_to_exitcode(status))
        print(json.dumps(report))

    """#

    private static let stopScript = #"""
    report_read, report_write = os.pipe()
    pid, master = pty.fork()
    if pid == 0:
        child = os.fork()
        if child == 0:
            os.setpgid(0, 0)
            signal.signal(signal.SIGTTOU, signal.SIG_IGN)
            os.tcsetpgrp(0, os.getpgrp())
            signal.signal(signal.SIGTTOU, signal.SIG_DFL)
            os.execv(request["argv"][0], request["argv"])
        os.write(report_write, str(child).encode())
        _, status = os.waitpid(child, 0)
        code = os.waitstatus_to_exitcode(status)
        os._exit(code if code >= 0 else 128 - code)
    os.close(report_write)
    child = int(os.read(report_read, 32))
    report = {}
    read_until(master, lambda: output.endswith(b": "), 10)
    os.write(master, b"\x1a")
    def state():
        with open("/proc/%d/stat" % child) as stat:
            return stat.read().rsplit(")", 1)[1].split()[0]
    deadline = time.time() + 10
    while time.time() < deadline and state() != "T":
        time.sleep(0.02)
    report["stopped"] = state() == "T"
    report["echoWhileStopped"] = echo_on(master)
    # The shell puts back its own settings while the job is stopped, then `fg`.
    attributes = termios.tcgetattr(master)
    attributes[3] |= termios.ECHO | termios.ICANON
    termios.tcsetattr(master, termios.TCSANOW, attributes)
    mark = len(output)
    os.kill(child, signal.SIGCONT)
    read_until(master, lambda: output[mark:].endswith(b": "), 5)
    time.sleep(0.1)
    report["echoOffWhileReading"] = not echo_on(master)
    os.write(master, request["pin"].encode() + b"\n")
    finish(master, pid, report)
    """#

    private static let stdinScript = #"""
    pid, master = pty.fork()
    if pid == 0:
        os.execv(request["argv"][0], request["argv"])
    deadline = time.time() + 5
    while time.time() < deadline and echo_on(master):
        time.sleep(0.02)
    report = {"echoOffWhileReading": not echo_on(master)}
    os.write(master, request["pin"].encode() + b"\n")
    finish(master, pid, report)
    """#
}
