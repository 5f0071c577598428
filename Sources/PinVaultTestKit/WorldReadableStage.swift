import Foundation
import Glibc

/// Copies of the files a test runs or reads as another uid (`nobody`, a sandbox's
/// `User=`): the `pinvault` and `pinvaultd` binaries, this test executable when it
/// re-runs itself as a child, the deny list. The checkout may sit where that uid cannot
/// reach (a 0700 home: `/root/pinvault`), so each file is copied once per test process
/// into one directory every uid can read, `/tmp/pinvault-stage-XXXXXX` (0755; files 0755
/// when their owner may execute them, else 0644), removed when the process exits.
public enum WorldReadableStage {
    private static let lock = NSLock()
    nonisolated(unsafe) private static var directory: String?
    nonisolated(unsafe) private static var copies: [String: String] = [:]

    /// The staged copy of `path` (symlinks resolved), made on first use; it keeps the
    /// file's name, in a subdirectory of its own.
    public static func copy(of path: String) throws -> String {
        let source = URL(fileURLWithPath: path).resolvingSymlinksInPath().path
        lock.lock()
        defer { lock.unlock() }
        if let staged = copies[source] { return staged }
        let stage = try stageDirectory()
        let slot = stage + "/\(copies.count)"
        try makeReadableDirectory(slot)
        let staged = slot + "/" + URL(fileURLWithPath: source).lastPathComponent
        do {
            try FileManager.default.copyItem(atPath: source, toPath: staged)
        } catch {
            throw TestKitError("cannot stage \(source): \(error)")
        }
        let executable = access(source, X_OK) == 0
        guard chmod(staged, executable ? 0o755 : 0o644) == 0 else { throw TestKitError("chmod \(staged): errno \(errno)") }
        copies[source] = staged
        return staged
    }

    private static func stageDirectory() throws -> String {
        if let directory { return directory }
        var template = Array("/tmp/pinvault-stage-XXXXXX".utf8CString)
        guard let made = mkdtemp(&template) else { throw TestKitError("mkdtemp: errno \(errno)") }
        let path = String(cString: made)
        try makeReadableDirectory(path)
        directory = path
        atexit { WorldReadableStage.remove() }
        return path
    }

    private static func makeReadableDirectory(_ path: String) throws {
        guard mkdir(path, 0o755) == 0 || errno == EEXIST, chmod(path, 0o755) == 0 else {
            throw TestKitError("cannot make \(path): errno \(errno)")
        }
    }

    /// Removes the stage (at exit, when no test runs any more: no lock, which a thread
    /// ended by `exit` might hold).
    private static func remove() {
        if let directory { try? FileManager.default.removeItem(atPath: directory) }
        directory = nil
        copies = [:]
    }
}
