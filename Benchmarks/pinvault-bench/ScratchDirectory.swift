import Foundation

/// A private temporary directory (0700), removed with everything in it on release.
final class ScratchDirectory {
    let path: String

    init(prefix: String) throws {
        var template = Array("/tmp/\(prefix)-XXXXXX".utf8CString)
        guard let made = mkdtemp(&template) else { throw BenchError.system("mkdtemp") }
        path = String(cString: made)
    }

    deinit {
        try? FileManager.default.removeItem(atPath: path)
    }

    /// `path/name`.
    func file(_ name: String) -> String { path + "/" + name }
}
