import Glibc
import PinVaultSystem

/// A private directory under /tmp, removed with what the tests put in it.
final class ScratchDirectory {
    let path: String

    init() throws {
        var template = Array("/tmp/pinvault-system-XXXXXX".utf8CString)
        guard let made = mkdtemp(&template) else { throw SystemError.last("mkdtemp") }
        path = String(cString: made)
    }

    deinit {
        if let directory = opendir(path) {
            while let entry = readdir(directory) {
                let name = withUnsafeBytes(of: entry.pointee.d_name) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }
                if name != "." && name != ".." { unlink(path + "/" + name) }
            }
            closedir(directory)
        }
        rmdir(path)
    }

    /// `path/name`, with `bytes` written to it when given.
    func file(_ name: String, _ bytes: [UInt8]? = nil) throws -> String {
        let file = path + "/" + name
        if let bytes {
            let fd = try Syscall.run("open") { open(file, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o600) }
            defer { close(fd) }
            try bytes.withUnsafeBytes { try FileDescriptor.writeFully(fd, $0) }
        }
        return file
    }
}
