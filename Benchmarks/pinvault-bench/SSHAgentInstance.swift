import Glibc
import PinVaultCrypto
import PinVaultProtocol
import PinVaultTestKit

/// A private `ssh-agent -D -a SOCKET` holding one key (made by `ssh-keygen -t ed25519
/// -N ''`, or `-t ecdsa -b 256` for a P-256 one, added with `ssh-add`), the reference
/// for cheap round trips and for signatures: a mature local agent.
final class SSHAgentInstance {
    let scratch: TemporaryDirectory
    let socketPath: String
    let algorithm: KeyAlgorithm
    /// The raw public key of the key it holds (`KeyAlgorithm`).
    let publicKey: [UInt8]
    private var child: ChildProcess?

    init(algorithm: KeyAlgorithm = .ed25519) throws {
        self.algorithm = algorithm
        scratch = try TemporaryDirectory()
        socketPath = scratch.path + "/agent.sock"
        let log = scratch.path + "/agent.log"
        let environment = ["PATH": "/usr/local/bin:/usr/bin:/bin", "SSH_AUTH_SOCK": socketPath]
        let key = scratch.path + "/id_key"
        let type = algorithm == .p256 ? ["-t", "ecdsa", "-b", "256"] : ["-t", "ed25519"]
        try Executable.run("ssh-keygen", ["-q"] + type + ["-N", "", "-C", "bench", "-f", key], environment: environment)
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
        publicKey = try Self.rawPublicKey(ofLineIn: key + ".pub", algorithm: algorithm)
    }

    /// The raw key at the end of the line's key blob (Ed25519's 32 bytes, P-256's point).
    private static func rawPublicKey(ofLineIn path: String, algorithm: KeyAlgorithm) throws -> [UInt8] {
        guard let file = fopen(path, "r") else { throw BenchError.system("fopen \(path)") }
        defer { fclose(file) }
        var line = [CChar](repeating: 0, count: 1024)
        guard fgets(&line, Int32(line.count), file) != nil else { throw BenchError("empty \(path)") }
        let fields = String(cString: line).split(separator: " ")
        guard fields.count >= 2, let blob = try? Base64.decode(String(fields[1])),
              algorithm.isWellFormed(publicKey: Array(blob.suffix(algorithm.publicKeySize)))
        else {
            throw BenchError("not a key line of \(algorithm.name): \(path)")
        }
        return Array(blob.suffix(algorithm.publicKeySize))
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
