import Glibc
import PinVaultSystem

/// A socket file nobody listens on: bound and closed without unlinking, what a crashed
/// daemon leaves behind. A connect to it is refused (`ECONNREFUSED`).
public enum StaleSocketFile {
    public static func make(at path: String) throws {
        do {
            close(try UnixSocket.bind(path: path))
        } catch {
            throw TestKitError("\(error)")
        }
    }
}
