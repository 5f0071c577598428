import PinVaultCrypto
import PinVaultSystem

/// Why no pepper could be had. Names the path and the reason, never the contents.
public struct PepperError: Error, Equatable, Sendable, CustomStringConvertible {
    /// What is wrong with the pepper file.
    public enum Reason: Equatable, Sendable {
        /// The file does not hold exactly 32 bytes (the size found is given, capped at 33).
        case wrongSize(Int)
        /// The path is a symbolic link (never followed).
        case symlink
        /// The path is not a regular file.
        case notRegularFile
        /// The file belongs to another uid.
        case wrongOwner(uid: UInt32)
        /// Group or others have access; the mode is given.
        case accessibleByOthers(mode: UInt32)
        /// No pepper file, but the vault holds records: a new pepper would lock them out.
        case missingWithRecords
        /// The credential's pepper differs from the one in this state file: at most one
        /// of them is the vault's, and the daemon cannot tell which.
        case differsFromStateFile(String)
        /// A system call failed.
        case system(SystemError)
        /// Secret memory or randomness could not be had.
        case crypto(CryptoError)
    }

    /// The pepper file in question.
    public var path: String
    public var reason: Reason

    public init(path: String, reason: Reason) {
        self.path = path
        self.reason = reason
    }

    public var description: String {
        let why: String
        switch reason {
        case .wrongSize(let size): why = "holds \(size) bytes, not \(PepperFile.size)"
        case .symlink: why = "is a symlink"
        case .notRegularFile: why = "not a regular file"
        case .wrongOwner(let uid): why = "owned by uid \(uid), not by this process's effective uid"
        case .accessibleByOthers(let mode): why = "mode \(FileStatus.octal(mode)) gives group or others access"
        case .missingWithRecords:
            why = "missing while the vault holds credentials; restore it (a new pepper would make them unopenable)"
        case .differsFromStateFile(let statePath):
            why = "differs from the pepper in \(statePath); at most one of them is the one the credentials were sealed "
                + "with: keep the right one and remove the other (pinvaultd refuses to guess)"
        case .system(let error): why = error.description
        case .crypto(let error): why = "secret memory unavailable (\(error))"
        }
        return "pepper \(path): \(why)"
    }
}
