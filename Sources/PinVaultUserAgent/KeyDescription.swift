import PinVaultAgentDoor
import PinVaultCrypto
import PinVaultProtocol
import PinVaultSSHProtocol
import PinVaultSystem

/// What a prompt says about a signature: which key, for what, and where to. The key by
/// its comment and fingerprint; the request by what ssh asked (a login as a user, or a
/// signature in a namespace such as git's); the destination by the host keys
/// session-bind verified (`AgentConnectionState.destination`), with the names
/// `known_hosts` gives them when it gives any. Nothing here comes from a claim that was
/// not checked: an unverified binding, or one the request does not belong to, names no
/// host; what a host the agent was forwarded to says of a next hop is marked as its word.
enum KeyDescription {
    static func request(
        comment: String, key: SSHKey, data: [UInt8], destination: AgentConnectionState.Destination, home: String?
    ) -> String {
        var text = "Use your PinVault key \(comment)\n\(fingerprint(key.blob))"
        switch data.withUnsafeBytes(SSHSignedData.parse) {
        case .userauth(let request):
            text += "\nto log in as \(printable(request.user))"
        case .sshsig(let preimage):
            text += "\nto sign for \(printable(preimage.namespace))"
        case nil:
            break
        }
        if destination.forwarded {
            text += destination.forwardedTo.map { "\nthrough an agent forwarded to " + host($0, home: home) }
                ?? "\nthrough a forwarded agent"
            if let next = destination.host, next != destination.forwardedTo {
                text += "\non " + host(next, home: home) + ", as that host says"
            }
        } else if let login = destination.host {
            text += "\non " + host(login, home: home)
        }
        return text + "?"
    }

    /// A host by its known_hosts names (three at most), then its key's fingerprint.
    private static func host(_ key: [UInt8], home: String?) -> String {
        let names = KnownHosts.names(of: key, home: home)
        return (names.isEmpty ? "" : names.prefix(3).joined(separator: ", ") + " ") + "(host key \(fingerprint(key)))"
    }

    /// OpenSSH's fingerprint: `SHA256:` and the unpadded base64 of the blob's SHA-256.
    static func fingerprint(_ blob: [UInt8]) -> String {
        var encoded = Base64.encodedString(blob.withUnsafeBytes(SHA256.hash))
        while encoded.hasSuffix("=") { encoded.removeLast() }
        return "SHA256:" + encoded
    }

    /// A name from the wire, shown only as printable ASCII (anything else as `?`): it
    /// comes from whoever ssh talks to.
    static func printable(_ bytes: [UInt8]) -> String {
        String(decoding: bytes.prefix(64).map { (0x20..<0x7f).contains($0) ? $0 : UInt8(ascii: "?") }, as: UTF8.self)
    }
}

/// The names `known_hosts` (the user's, then the system's) gives a host key, read as
/// ssh writes the file: `[marker] names keytype base64 [comment]`. Hashed names (`|1|…`)
/// cannot be read back, and `@revoked` or `@cert-authority` lines name no host.
enum KnownHosts {
    static let maxFileBytes = 4 << 20

    static func names(of hostKey: [UInt8], home: String?) -> [String] {
        let files = (home.map { [$0 + "/.ssh/known_hosts"] } ?? []) + ["/etc/ssh/ssh_known_hosts"]
        var found: [String] = []
        for file in files {
            guard let bytes = try? RegularFile.read(path: file, maxBytes: maxFileBytes) else { continue }
            for line in bytes.split(separator: UInt8(ascii: "\n")) {
                let fields = line.split(omittingEmptySubsequences: true) { $0 == UInt8(ascii: " ") || $0 == UInt8(ascii: "\t") }
                guard fields.count >= 3, fields[0].first != UInt8(ascii: "#"), fields[0].first != UInt8(ascii: "@") else { continue }
                guard let blob = try? Base64.decode(String(decoding: fields[2], as: UTF8.self)), blob == hostKey else { continue }
                for name in fields[0].split(separator: UInt8(ascii: ",")) where name.first != UInt8(ascii: "|") {
                    let readable = KeyDescription.printable(Array(name))
                    if !found.contains(readable) { found.append(readable) }
                }
            }
        }
        return found
    }
}
