import Glibc
import PinVaultCrypto
import PinVaultSystem

/// Finds, checks, or makes the 32-byte pepper (docs/FORMAT.md §9). The bytes go from `read(2)`
/// straight into secret memory, never through a Swift array.
public enum PepperFile {
    /// The pepper's size in bytes.
    public static let size = Pepper.size
    /// The file name under `$CREDENTIALS_DIRECTORY` (systemd `LoadCredential=pinvault.pepper:…`).
    public static let credentialName = "pinvault.pepper"
    /// The file name under the state directory.
    public static let stateFileName = "pepper"

    /// If `credentialsDirectory` (the value of `$CREDENTIALS_DIRECTORY`, may be nil)
    /// holds `pinvault.pepper`, reads it: exactly 32 bytes, or an error; and when
    /// `<stateDirectory>/pepper` exists too, it must hold the same bytes (else
    /// `.differsFromCredential`: one of the two is not the vault's). Otherwise reads
    /// `<stateDirectory>/pepper` (regular file, no symlink, owned by the effective uid, no
    /// group or other permission bits, exactly 32 bytes). When that is absent it refuses
    /// if `recordsExist`; else creates it `O_CREAT|O_EXCL|O_NOFOLLOW` 0600 with 32 random
    /// bytes, then fsyncs the file and the directory.
    public static func load(
        credentialsDirectory: String?,
        stateDirectory: String,
        recordsExist: Bool
    ) throws(PepperError) -> (Pepper, PepperSource) {
        if let credentialsDirectory, !credentialsDirectory.isEmpty {
            let path = credentialsDirectory + "/" + credentialName
            if let pepper = try read(path: path, mustBePrivate: false) {
                let statePath = stateDirectory + "/" + stateFileName
                if let statePepper = try read(path: statePath, mustBePrivate: true), !statePepper.isSame(as: pepper) {
                    throw PepperError(path: path, reason: .differsFromStateFile(statePath))
                }
                return (pepper, .credentials(path: path))
            }
        }
        let path = stateDirectory + "/" + stateFileName
        if let pepper = try read(path: path, mustBePrivate: true) {
            return (pepper, .stateFile(path: path))
        }
        guard !recordsExist else { throw PepperError(path: path, reason: .missingWithRecords) }
        if let pepper = try create(path: path, directory: stateDirectory) {
            return (pepper, .created(path: path))
        }
        // Another process created it between our read and our O_EXCL: use theirs.
        if let pepper = try read(path: path, mustBePrivate: true) {
            return (pepper, .stateFile(path: path))
        }
        throw PepperError(path: path, reason: .system(SystemError(call: "open", errno: ENOENT)))
    }

    /// The pepper at `path`, or nil when there is no file there. `mustBePrivate` adds the
    /// owner and mode checks (systemd's credential files are its own business).
    private static func read(path: String, mustBePrivate: Bool) throws(PepperError) -> Pepper? {
        func fail(_ reason: PepperError.Reason) -> PepperError { PepperError(path: path, reason: reason) }
        // O_NONBLOCK: a FIFO planted at the path must not hang the start.
        let fd = open(path, O_RDONLY | O_NOFOLLOW | O_CLOEXEC | O_NOCTTY | O_NONBLOCK)
        guard fd >= 0 else {
            switch errno {
            case ENOENT: return nil
            case ELOOP: throw fail(.symlink)
            default: throw fail(.system(.last("open")))
            }
        }
        defer { close(fd) }
        let status: FileStatus
        do throws(SystemError) {
            status = try FileStatus.fstat(fd)
        } catch {
            throw fail(.system(error))
        }
        guard status.kind == .regular else { throw fail(.notRegularFile) }
        if mustBePrivate {
            guard status.ownerUid == geteuid() else { throw fail(.wrongOwner(uid: status.ownerUid)) }
            guard !status.isAccessibleByOthers else { throw fail(.accessibleByOthers(mode: status.permissions)) }
        }
        let secret: SecretBytes
        do throws(CryptoError) {
            // One byte of room past the size, so that a longer file is seen as such.
            secret = try SecretBytes(capacity: size + 1)
        } catch {
            throw fail(.crypto(error))
        }
        do throws(SystemError) {
            try secret.fill { (buffer) throws(SystemError) -> Int in
                try FileDescriptor.readFully(fd, into: buffer)
            }
        } catch {
            throw fail(.system(error))
        }
        guard secret.count == size, let pepper = try? Pepper(secret: secret) else {
            throw fail(.wrongSize(secret.count))
        }
        return pepper
    }

    /// Makes a new pepper file; nil when one appeared meanwhile (EEXIST).
    private static func create(path: String, directory: String) throws(PepperError) -> Pepper? {
        func fail(_ reason: PepperError.Reason) -> PepperError { PepperError(path: path, reason: reason) }
        let fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC | O_NOCTTY, 0o600)
        guard fd >= 0 else {
            if errno == EEXIST { return nil }
            throw fail(.system(.last("open")))
        }
        let pepper: Pepper
        do throws(PepperError) {
            do throws(CryptoError) {
                pepper = try Pepper.generate()
            } catch {
                throw fail(.crypto(error))
            }
            do throws(SystemError) {
                // The umask may have narrowed 0600; the daemon must be able to read it back.
                guard fchmod(fd, 0o600) == 0 else { throw .last("fchmod") }
                try pepper.secret.withUnsafeBytes { (bytes) throws(SystemError) in try FileDescriptor.writeFully(fd, bytes) }
                guard fsync(fd) == 0 else { throw .last("fsync") }
            } catch {
                throw fail(.system(error))
            }
        } catch {
            // Leave no half-written pepper for the next start to trip over.
            close(fd)
            unlink(path)
            throw error
        }
        guard close(fd) == 0 else {
            unlink(path)
            throw fail(.system(.last("close")))
        }
        do throws(SystemError) {
            try FileDescriptor.syncDirectory(directory)
        } catch {
            // The file itself is complete and synced; only its directory entry may not be.
            throw PepperError(path: directory, reason: .system(error))
        }
        return pepper
    }
}
