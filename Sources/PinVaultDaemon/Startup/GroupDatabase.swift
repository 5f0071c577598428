import Glibc
import PinVaultSystem

/// Group names to gids, through NSS (`getgrnam_r`), resolved once at start.
enum GroupDatabase {
    static func gid(named name: String) throws(GroupLookupError) -> gid_t {
        var group = group()
        var result: UnsafeMutablePointer<group>?
        var size = 1024
        while size <= 1 << 20 {
            var buffer = [CChar](repeating: 0, count: size)
            let status = getgrnam_r(name, &group, &buffer, size, &result)
            if status == ERANGE {
                size *= 2
                continue
            }
            guard status == 0 else { throw .lookupFailed(name, SystemError(call: "getgrnam_r", errno: status)) }
            guard result != nil else { throw .noSuchGroup(name) }
            return group.gr_gid
        }
        throw .lookupFailed(name, SystemError(call: "getgrnam_r", errno: ERANGE))
    }
}

public enum GroupLookupError: Error, CustomStringConvertible {
    case noSuchGroup(String)
    case lookupFailed(String, SystemError)

    public var description: String {
        switch self {
        case .noSuchGroup(let name): "no such group '\(name)'"
        case .lookupFailed(let name, let error): "cannot look up group '\(name)': \(error)"
        }
    }
}
