import Foundation
import Glibc

/// A fresh private directory under /tmp, removed with everything in it on deinit.
final class TemporaryDirectory {
    let path: String

    init() throws {
        var template = Array("/tmp/pinvault-store-XXXXXX".utf8CString)
        guard let made = mkdtemp(&template) else { throw SystemErrorForTests(call: "mkdtemp", errno: errno) }
        path = String(cString: made)
    }

    deinit {
        // Make everything writable again first, in case a test narrowed a mode.
        _ = chmod(path, 0o700)
        try? FileManager.default.removeItem(atPath: path)
    }

    /// `path/name`.
    func file(_ name: String) -> String { path + "/" + name }
}

struct SystemErrorForTests: Error {
    var call: String
    var errno: Int32
}

/// The permission bits of `path` (following no symlink).
func permissions(of path: String) throws -> UInt32 {
    var status = stat()
    guard lstat(path, &status) == 0 else { throw SystemErrorForTests(call: "lstat", errno: errno) }
    return UInt32(status.st_mode & 0o7777)
}

/// Writes `bytes` to a new file `path` with `mode`.
func writeFile(_ path: String, _ bytes: [UInt8], mode: mode_t = 0o600) throws {
    let fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, mode)
    guard fd >= 0 else { throw SystemErrorForTests(call: "open", errno: errno) }
    defer { close(fd) }
    guard fchmod(fd, mode) == 0 else { throw SystemErrorForTests(call: "fchmod", errno: errno) }
    let written = bytes.withUnsafeBytes { write(fd, $0.baseAddress, $0.count) }
    guard written == bytes.count else { throw SystemErrorForTests(call: "write", errno: errno) }
}

/// The whole content of `path`.
func readFile(_ path: String) throws -> [UInt8] {
    guard let data = FileManager.default.contents(atPath: path) else {
        throw SystemErrorForTests(call: "read", errno: errno)
    }
    return [UInt8](data)
}
