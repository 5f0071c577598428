import Foundation
import Glibc
import PinVaultTestKit
import XCTest

/// Drives `pam_pinvault.so` through Debian's real `pamtester`, against a real
/// pinvaultd (run as root by the test kit), for a local user made for each test.
///
/// Needs root (useradd, /etc/pam.d, setpriv): otherwise every test is skipped with a
/// loud message, and under CI=true it fails instead, since CI runs as root.
class PAMTestCase: XCTestCase {
    var daemon: TestDaemon!
    var user: LocalUser!
    var module: StagedModule!

    /// PINs the test policy accepts.
    let pin = "258046"
    let wrongPin = "370591"

    override class func tearDown() {
        StagedModule.removeShared()
        super.tearDown()
    }

    override func setUpWithError() throws {
        guard geteuid() == 0 else {
            let message = "PinVaultPAMTests NOT RUN: they need root (useradd, /etc/pam.d, setpriv); run `make test` as root"
            if ProcessInfo.processInfo.environment["CI"] == "true" {
                XCTFail(message)
            }
            throw XCTSkip(message)
        }
        for tool in ["/usr/bin/pamtester", "/usr/bin/setpriv", "/usr/sbin/useradd"] where !FileManager.default.isExecutableFile(atPath: tool) {
            XCTFail("\(tool) is missing: `make test` installs it (TEST_PACKAGES)")
            throw XCTSkip("\(tool) missing")
        }
        module = try StagedModule.shared()
        user = try LocalUser()
    }

    override func tearDownWithError() throws {
        if let daemon, daemon.process != nil {
            XCTAssertEqual(try daemon.stop(), 0, "pinvaultd did not exit cleanly:\n\(daemon.log)")
        }
        daemon = nil
        user = nil
    }

    /// Starts pinvaultd with `overrides` over the test kit's configuration.
    func startDaemon(_ overrides: [String: [String: String]] = [:]) throws {
        daemon = try TestDaemon(overrides: overrides)
        try daemon.start()
    }

    /// `pam_pinvault.so` with `options`, pointed at the test daemon unless a socket is given.
    func moduleLine(_ control: String, _ options: [String] = [], socket: String? = nil) -> String {
        let socketPath = socket ?? daemon.socketPath
        return (["auth", control, module.path, "socket=\(socketPath)"] + options).joined(separator: " ")
    }

    /// A service whose only auth module is pam_pinvault (`required`).
    func onlyModule(_ options: [String] = [], socket: String? = nil) throws -> PAMServiceFile {
        try PAMServiceFile([moduleLine("required", options, socket: socket)])
    }

    /// Registers a credential as the test user (a real peer of that uid), labelled
    /// `label`, for `purpose` (the module's is `login`; nil leaves the daemon's default),
    /// with a key of `algorithm` (nil: the daemon's default, Ed25519).
    @discardableResult
    func registerAsUser(label: String? = "login", pin: String? = nil, purpose: String? = "login", algorithm: String? = nil) throws
        -> [String: Any]
    {
        var parameters: [String: Any] = ["user": user.name, "pin": pin ?? self.pin]
        if let label { parameters["label"] = label }
        if let purpose { parameters["purpose"] = purpose }
        if let algorithm { parameters["algorithm"] = algorithm }
        let session = try ForeignPeer(socketPath: daemon.socketPath, uid: user.uid, gid: user.gid)
            .session([(VarlinkClient.vault + ".Register", parameters)])
        guard let reply = session.replies.first, reply.error == nil, let credential = reply.object("credential") else {
            throw TestKitError("Register as \(user.name) failed: \(session.replies)")
        }
        return credential
    }

    /// The test user's credentials as root sees them (List with ownerUid).
    func usersCredentials() throws -> [[String: Any]] {
        try daemon.connect().list(ownerUid: Int(user.uid))
    }

    /// The daemon's counters now (GetStats, on a connection of its own, closed at once).
    func daemonCounters() throws -> [String: Any] {
        let client = try daemon.connect()
        defer { client.close() }
        guard let counters = try client.succeeding("GetStats").object("counters") else { throw TestKitError("no counters") }
        return counters
    }

    /// Method calls the daemon answered so far, this one not included.
    func daemonRequests() throws -> Int {
        guard let requests = (try daemonCounters()["requests"] as? NSNumber)?.intValue else { throw TestKitError("no requests") }
        return requests
    }

    /// What one `pamtester SERVICE USER authenticate` did.
    struct Outcome: CustomStringConvertible {
        let status: Int32
        /// stdout and stderr together: prompts, messages, and pamtester's verdict.
        let output: String
        var succeeded: Bool { status == 0 && output.contains("pamtester: successfully authenticated") }
        var prompts: Int { output.components(separatedBy: "PIN for ").count - 1 }
        var description: String { "exit \(status):\n\(output)" }
        func failed(with reason: String) -> Bool { status != 0 && output.contains("pamtester: \(reason)") }
    }

    /// Runs pamtester for `service` and `pamUser` (default: the test user), feeding `input`;
    /// `asUser` runs it as the test user (the screen-locker case) instead of root.
    /// `items` are PAM items it sets first (`-I rhost=…`, `tty=…`), `environment`
    /// variables of the PAM environment (`-E NAME=value`).
    func pamtester(_ service: PAMServiceFile, user pamUser: String? = nil, input: String = "", asUser: Bool = false,
                   operation: String = "authenticate", items: [String: String] = [:], environment: [String: String] = [:],
                   timeout: TimeInterval = 30) throws -> Outcome {
        try pamtester(service, user: pamUser, bytes: Data(input.utf8), asUser: asUser, operation: operation, items: items,
                      environment: environment, timeout: timeout)
    }

    /// pamtester with `bytes` on its standard input, UTF-8 or not.
    func pamtester(_ service: PAMServiceFile, user pamUser: String? = nil, bytes input: Data, asUser: Bool = false,
                   operation: String = "authenticate", items: [String: String] = [:], environment: [String: String] = [:],
                   timeout: TimeInterval = 30) throws -> Outcome {
        let options = items.sorted { $0.key < $1.key }.flatMap { ["-I", "\($0.key)=\($0.value)"] }
            + environment.sorted { $0.key < $1.key }.flatMap { ["-E", "\($0.key)=\($0.value)"] }
        let command = ["/usr/bin/pamtester"] + options + [service.name, pamUser ?? user.name, operation]
        let result = asUser
            ? try Subprocess.run("/usr/bin/setpriv", user.setpriv(command), input: input, timeout: timeout)
            : try Subprocess.run(command[0], Array(command.dropFirst()), input: input, timeout: timeout)
        return Outcome(status: result.status, output: result.standardOutput + result.standardError)
    }
}

/// pam_strerror's words for each result, as pamtester prints them.
enum PAMResult {
    static let authError = "Authentication failure"
    static let maxTries = "Have exhausted maximum number of retries for service"
    static let userUnknown = "User not known to the underlying authentication module"
    static let authInfoUnavailable = "Authentication service cannot retrieve authentication info"
    static let serviceError = "Error in service module"
    static let permissionDenied = "Permission denied"
}
