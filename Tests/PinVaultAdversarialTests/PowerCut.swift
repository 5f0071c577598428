import Foundation
import Glibc
import PinVaultTestKit

/// The power-cut harness of `Tests/PowerCut`, compiled with the machine's C compiler
/// for each use: `powercut.so`, loaded into the daemon with LD_PRELOAD, keeps beside
/// the state directory the image a power cut would leave (each file as of its last
/// fsync/fdatasync, the names as of the directory's last one); `cut` SIGKILLs the
/// daemon and puts that image in place with `powercut-restore`. The same shim numbers
/// the daemon's writes, syncs and PIN checks and kills it or fails a call at one of
/// them (`Point`), for the crash sweep (`CrashSweep`).
final class PowerCut {
    /// Which syncs the shim's bookkeeping ignores (the real ones still run): a daemon
    /// whose syncs do not reach the disk, for proving that the harness sees the loss.
    enum Skip: String {
        case nothing = ""
        case fileSyncs = "file-sync"
        case directorySyncs = "directory-sync"
    }

    /// One file as `powercut-restore` left it.
    struct RestoredFile {
        let name: String
        /// Bytes at the cut and after the restore; nil when absent.
        let before: Int?
        let after: Int?
        let changed: Bool
    }

    let skip: Skip
    private let directory: TemporaryDirectory
    /// The shim, and the tool that puts its image in place.
    let library: String
    let restoreTool: String
    /// Where the shim keeps the images (emptied by the shim at each start).
    let shadow: String

    init(skip: Skip = .nothing) throws {
        self.skip = skip
        directory = try TemporaryDirectory()
        library = directory.path + "/powercut.so"
        restoreTool = directory.path + "/powercut-restore"
        shadow = directory.path + "/shadow"
        guard mkdir(shadow, 0o700) == 0 else { throw TestKitError("mkdir \(shadow): errno \(errno)") }
        let sources = TestDaemon.repositoryRoot + "/Tests/PowerCut/"
        try Self.compile(["-shared", "-fPIC", "-o", library, sources + "powercut.c", "-ldl", "-lpthread"])
        try Self.compile(["-o", restoreTool, sources + "powercut-restore.c"])
    }

    /// The variables that load the shim into `daemon` and point it at its state.
    /// With `points`, the shim also numbers each write, sync and PIN check once `arm()`
    /// was called (`events()`), and acts at `point` when one is given.
    func environment(for daemon: TestDaemon, points: Bool = false, at point: Point? = nil) -> [String: String] {
        var environment = [
            "LD_PRELOAD": library,
            // The shim compares paths as /proc shows them: resolved.
            "POWERCUT_DIRECTORY": URL(fileURLWithPath: daemon.root).resolvingSymlinksInPath().path + "/state",
            "POWERCUT_SHADOW": shadow,
            "POWERCUT_SKIP": skip.rawValue,
        ]
        if points || point != nil {
            environment["POWERCUT_ARM"] = armPath
            environment["POWERCUT_EVENTS"] = eventsPath
        }
        if let point {
            environment["POWERCUT_AT"] = "\(point.event)"
            environment["POWERCUT_ACTION"] = point.action.rawValue
        }
        return environment
    }

    // MARK: Crash points

    /// What the shim does at one event.
    enum Action: String {
        /// SIGKILL before the call is made (after it returned, for a PIN check).
        case kill
        /// SIGKILL once the call returned.
        case killAfter = "kill-after"
        /// The call fails with that errno, unmade, once.
        case enospc, eio
    }

    /// An event of the shim's numbering, and what to do there.
    struct Point: Hashable {
        let event: Int
        let action: Action
    }

    /// One numbered call: `kind` is write, truncate, sync or check; `file` the name in
    /// the state directory ("." for the directory, "-" for a PIN check).
    struct Event: Equatable, CustomStringConvertible {
        let number: Int
        let kind: String
        let file: String
        var description: String { "\(number) \(kind) \(file)" }
    }

    private var armPath: String { directory.path + "/armed" }
    private var eventsPath: String { directory.path + "/events" }

    /// From now on the shim numbers events (it looks for this file at each watched call).
    func arm() throws {
        guard FileManager.default.createFile(atPath: armPath, contents: nil) else { throw TestKitError("cannot create \(armPath)") }
    }

    /// Stops numbering in the next daemon started.
    func disarm() {
        unlink(armPath)
    }

    /// The events the shim numbered since the daemon started.
    func events() throws -> [Event] {
        let text = (try? String(contentsOfFile: eventsPath, encoding: .utf8)) ?? ""
        return try text.split(separator: "\n").map { line in
            let fields = line.split(separator: " ", maxSplits: 2).map(String.init)
            guard fields.count == 3, let number = Int(fields[0]) else { throw TestKitError("events: bad line \(line)") }
            return Event(number: number, kind: fields[1], file: fields[2])
        }
    }

    /// The shim's counts since the daemon started: writes, file-syncs and
    /// directory-syncs it saw in the state directory.
    func counters() throws -> [String: Int] {
        let text = try String(contentsOfFile: shadow + "/counters", encoding: .utf8)
        var counters: [String: Int] = [:]
        for line in text.split(separator: "\n") {
            let fields = line.split(separator: " ")
            if fields.count == 2, let value = Int(fields[1]) { counters[String(fields[0])] = value }
        }
        return counters
    }

    /// The power cut: SIGKILLs the daemon, then makes its state directory what the disk
    /// would hold. Returns each file as it was restored.
    @discardableResult
    func cut(_ daemon: TestDaemon) throws -> [RestoredFile] {
        try daemon.stop(signal: SIGKILL)
        let result = try Subprocess.run(restoreTool, [daemon.stateDirectory, shadow])
        guard result.status == 0 else { throw TestKitError("powercut-restore failed:\n\(result)") }
        return result.standardOutput.split(separator: "\n").compactMap { line in
            let fields = line.split(separator: " ").map(String.init)
            guard fields.count == 4 else { return nil }
            return RestoredFile(name: fields[0], before: Int(fields[1]), after: Int(fields[2]), changed: fields[3] == "differs")
        }
    }

    private static func compile(_ arguments: [String]) throws {
        let path = ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin"
        let compilers = ["cc", "gcc", "clang"].flatMap { name in path.split(separator: ":").map { "\($0)/\(name)" } }
        guard let compiler = compilers.first(where: { FileManager.default.isExecutableFile(atPath: $0) }) else {
            throw TestKitError("no C compiler (cc, gcc or clang) on PATH to build Tests/PowerCut")
        }
        let result = try Subprocess.run(compiler, ["-O2", "-Wall", "-Wextra"] + arguments, timeout: 120)
        guard result.status == 0 else { throw TestKitError("\(compiler) failed:\n\(result)") }
    }
}
