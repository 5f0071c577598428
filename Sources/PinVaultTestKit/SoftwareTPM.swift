import Foundation
import Glibc
import PinVaultSystem

/// A TPM2 of the test's own: swtpm (Debian's swtpm and swtpm-tools), manufactured into a
/// private state directory and served on a Unix socket, which systemd-creds reaches as
/// `--tpm2-device=swtpm:path=SOCKET` (libtss2-tcti-swtpm0) and tpm2-tools through
/// `TPM2TOOLS_TCTI`.
///
/// The TPM has no resource manager in front of it, as /dev/tpmrm0 has on a real machine:
/// a session a client leaves loaded stays loaded (systemd 252's `systemd-creds decrypt`
/// leaves one each time), and the TPM holds three. `flush()` drops them, as the kernel's
/// resource manager does when a client closes the device; call it between programs.
public final class SoftwareTPM {
    /// The TCTI string for `--tpm2-device=` and `TPM2TOOLS_TCTI`.
    public let device: String
    private let directory: TemporaryDirectory
    private var process: ChildProcess?

    /// The programs this needs, with the Debian package of each, for a suite's skip.
    public static let programs = [
        "/usr/bin/swtpm": "swtpm", "/usr/bin/swtpm_setup": "swtpm-tools", "/usr/bin/tpm2_pcrextend": "tpm2-tools",
    ]

    /// What is missing to run one, or nil (libtss2-tcti-swtpm0 is found by its file).
    public static var missing: String? {
        var absent = programs.filter { !FileManager.default.isExecutableFile(atPath: $0.key) }.map(\.value)
        let tcti = ["/usr/lib/x86_64-linux-gnu", "/usr/lib/aarch64-linux-gnu", "/usr/lib"]
            .contains { FileManager.default.fileExists(atPath: $0 + "/libtss2-tcti-swtpm.so.0") }
        if !tcti { absent.append("libtss2-tcti-swtpm0") }
        return absent.isEmpty ? nil : absent.sorted().joined(separator: ", ")
    }

    /// A new TPM2 with a SHA-256 PCR bank, started (TPM2_Startup(CLEAR): every PCR at its
    /// power-on value).
    public init() throws {
        directory = try TemporaryDirectory()
        device = "swtpm:path=" + directory.path + "/tpm.sock"
        try manufacture()
        try start()
    }

    deinit { stop() }

    /// A TPM2 cleared and made anew, as on a replaced board: nothing sealed before opens.
    public func replace() throws {
        stop()
        try FileManager.default.removeItem(atPath: directory.path + "/state")
        try manufacture()
        try start()
    }

    /// A firmware or Secure Boot update, as the next boot's measurements see it: PCRs
    /// 0 (firmware), 2 (option ROMs), 4 (boot loader) and 7 (Secure Boot state) extended.
    public func measureAFirmwareUpdate() throws {
        let digest = String(repeating: "5a", count: 32)
        try tool("/usr/bin/tpm2_pcrextend", [0, 2, 4, 7].map { "\($0):sha256=\(digest)" })
    }

    /// Drops every session and transient object clients left loaded (see above).
    public func flush() throws {
        for kind in ["--transient-object", "--loaded-session", "--saved-session"] {
            try tool("/usr/bin/tpm2_flushcontext", [kind])
        }
    }

    private func manufacture() throws {
        let state = directory.path + "/state"
        guard mkdir(state, 0o700) == 0 else { throw TestKitError("mkdir \(state): errno \(errno)") }
        let made = try Subprocess.run(
            "/usr/bin/swtpm_setup", ["--tpm2", "--tpmstate", state, "--pcr-banks", "sha256"], timeout: 120)
        guard made.status == 0 else { throw TestKitError("swtpm_setup failed: \(made)") }
    }

    /// swtpm in the foreground, our child; ready once its socket takes a connection (a
    /// bounded wait for readiness, not a race: a slow machine only waits longer).
    private func start() throws {
        let socket = directory.path + "/tpm.sock"
        for stale in [socket, socket + ".ctrl"] { unlink(stale) }
        let child = try ChildProcess(
            path: "/usr/bin/swtpm",
            arguments: [
                "socket", "--tpm2", "--flags", "startup-clear",
                "--tpmstate", "dir=" + directory.path + "/state",
                "--server", "type=unixio,path=" + socket,
                "--ctrl", "type=unixio,path=" + socket + ".ctrl",
            ],
            environment: ChildProcess.inheritedEnvironment(), logPath: directory.path + "/swtpm.log")
        process = child
        var waited = 0
        while !Self.accepts(socket) {
            guard child.isRunning, waited < 12_000 else {
                let log = (try? String(contentsOfFile: directory.path + "/swtpm.log", encoding: .utf8)) ?? ""
                throw TestKitError("swtpm did not come up on \(socket): \(log)")
            }
            usleep(5_000)
            waited += 1
        }
    }

    private func stop() {
        _ = process?.stop(signal: SIGTERM, timeout: 30)
        process = nil
    }

    private static func accepts(_ path: String) -> Bool {
        guard let address = UnixSocketAddress(path: path) else { return false }
        let fd = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard fd >= 0 else { return false }
        defer { close(fd) }
        return address.withSockaddr { connect(fd, $0, $1) } == 0
    }

    private func tool(_ path: String, _ arguments: [String]) throws {
        var environment = ProcessInfo.processInfo.environment
        environment["TPM2TOOLS_TCTI"] = device
        let result = try Subprocess.run(path, arguments, environment: environment)
        guard result.status == 0 else { throw TestKitError("\(path) \(arguments.joined(separator: " ")) failed: \(result)") }
    }
}
