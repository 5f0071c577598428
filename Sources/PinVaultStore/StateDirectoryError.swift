import PinVaultSystem

/// Why the state directory cannot be used. Names the path and the reason.
public struct StateDirectoryError: Error, Equatable, Sendable, CustomStringConvertible {
    /// What is wrong with the directory.
    public enum Reason: Equatable, Sendable {
        /// The path exists but is not a directory.
        case notDirectory
        /// The path is a symbolic link (never followed).
        case symlink
        /// The directory belongs to another uid.
        case wrongOwner(uid: UInt32)
        /// Group or others may write to it; the mode is given.
        case writableByOthers(mode: UInt32)
        /// A system call failed.
        case system(SystemError)
    }

    /// The directory in question.
    public var path: String
    public var reason: Reason

    public init(path: String, reason: Reason) {
        self.path = path
        self.reason = reason
    }

    public var description: String {
        let why: String
        switch reason {
        case .notDirectory: why = "not a directory"
        case .symlink: why = "is a symlink"
        case .wrongOwner(let uid): why = "owned by uid \(uid), not by this process's effective uid"
        case .writableByOthers(let mode): why = "mode \(FileStatus.octal(mode)) lets group or others write"
        case .system(let error): why = error.description
        }
        return "state directory \(path): \(why)"
    }
}
