import Glibc

/// A `sockaddr_un` for a filesystem path, or for an abstract name (first byte NUL),
/// with the length to pass alongside it.
struct UnixSocketAddress {
    /// Longest path that fits with its terminating NUL (107 on Linux).
    static let maxPathBytes = MemoryLayout.size(ofValue: sockaddr_un().sun_path) - 1

    private var address = sockaddr_un()
    private let length: socklen_t

    /// nil when `bytes` is empty or does not fit.
    init?(_ bytes: [UInt8]) {
        guard !bytes.isEmpty, bytes.count <= Self.maxPathBytes else { return nil }
        address.sun_family = sa_family_t(AF_UNIX)
        withUnsafeMutableBytes(of: &address.sun_path) { raw in
            for (index, byte) in bytes.enumerated() { raw[index] = byte }
        }
        // A path is passed with its NUL; an abstract name is exactly its bytes.
        let isAbstract = bytes[0] == 0
        length = socklen_t(MemoryLayout<sa_family_t>.size + bytes.count + (isAbstract ? 0 : 1))
    }

    init?(path: String) {
        self.init(Array(path.utf8))
    }

    func withSockaddr<R>(_ body: (UnsafePointer<sockaddr>, socklen_t) -> R) -> R {
        withUnsafePointer(to: address) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { body($0, length) }
        }
    }
}
