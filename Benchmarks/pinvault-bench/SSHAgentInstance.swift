import Glibc
import PinVaultProtocol
import PinVaultTestKit

/// A private `ssh-agent -D -a SOCKET` holding one ed25519 key (made by
/// `ssh-keygen -t ed25519 -N ''`, added with `ssh-add`), the reference for cheap
/// round trips: a mature local agent answering a query that touches no secret.
final class SSHAgentInstance {
    let scratch: TemporaryDirectory
    let socketPath: String
    /// The raw 32-byte public key of the key it holds.
    let publicKey: [UInt8]
    private var child: ChildProcess?

    init() throws {
        scratch = try TemporaryDirectory()
        socketPath = scratch.path + "/agent.sock"
        let log = scratch.path + "/agent.log"
        let environment = ["PATH": "/usr/local/bin:/usr/bin:/bin", "SSH_AUTH_SOCK": socketPath]
        let key = scratch.path + "/id_ed25519"
        try Executable.run("ssh-keygen", ["-q", "-t", "ed25519", "-N", "", "-C", "bench", "-f", key], environment: environment)
        let agent = try ChildProcess(
            path: try Executable.find("ssh-agent"), arguments: ["-D", "-a", socketPath],
            environment: environment, logPath: log)
        child = agent
        let deadline = Monotonic.now() + 10_000_000_000
        var status = stat()
        while stat(socketPath, &status) != 0 {
            guard agent.isRunning, Monotonic.now() < deadline else { throw BenchError("ssh-agent did not start; see \(log)") }
            usleep(1_000)
        }
        try Executable.run("ssh-add", ["-q", key], environment: environment)
        publicKey = try Self.rawPublicKey(ofLineIn: key + ".pub")
    }

    /// The 32 bytes at the end of an `ssh-ed25519` line's key blob.
    private static func rawPublicKey(ofLineIn path: String) throws -> [UInt8] {
        guard let file = fopen(path, "r") else { throw BenchError.system("fopen \(path)") }
        defer { fclose(file) }
        var line = [CChar](repeating: 0, count: 1024)
        guard fgets(&line, Int32(line.count), file) != nil else { throw BenchError("empty \(path)") }
        let fields = String(cString: line).split(separator: " ")
        guard fields.count >= 2, let blob = try? Base64.decode(String(fields[1])), blob.count == 51 else {
            throw BenchError("not an ssh-ed25519 key line: \(path)")
        }
        return Array(blob.suffix(32))
    }

    /// The agent's process id (0 once stopped).
    var pid: pid_t { child?.pid ?? 0 }

    deinit {
        child?.stop(timeout: 5)
    }

    func connect() throws -> SSHAgentClient {
        try SSHAgentClient(path: socketPath, timeoutSeconds: 120)
    }
}
