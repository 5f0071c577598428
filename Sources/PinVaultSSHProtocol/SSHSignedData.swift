import PinVaultCrypto

/// The two things OpenSSH asks an agent to sign with a user key, parsed exactly as
/// OpenSSH's agent parses them before it lets a key of another application sign
/// (`parse_userauth_request` and `parse_sshsig_request` in ssh-agent.c):
///
/// - an SSH public-key authentication request (RFC 4252 §7, and OpenSSH's
///   `publickey-hostbound-v00@openssh.com`, PROTOCOL §2.5):
///   `string session identifier, byte 50, string user, string service, string method,
///   boolean TRUE, string algorithm, string key [, string host key]`;
/// - an SSHSIG preimage (PROTOCOL.sshsig §3): `"SSHSIG", string namespace,
///   string reserved, string hash algorithm, string H(message)`.
///
/// Every length must be consistent and nothing may follow the last field. The caller
/// still checks that the key named inside is the one it signs with
/// (`UserauthRequest.names(keyBlob:algorithm:)`).
///
/// `resemblesSSHData` answers the opposite question, broadly: could these bytes be
/// meant as SSH data at all? A door that signs a relying party's challenge refuses
/// anything that does (SECURITY.md "Signature domains").
public enum SSHSignedData: Equatable, Sendable {
    case userauth(UserauthRequest)
    case sshsig(SSHSIGPreimage)

    /// An SSH_MSG_USERAUTH_REQUEST for the `publickey` method, as it is signed.
    public struct UserauthRequest: Equatable, Sendable {
        /// The exchange hash of the connection's first key exchange (never empty).
        public var sessionIdentifier: [UInt8]
        public var user: [UInt8]
        /// Always `ssh-connection`.
        public var service: [UInt8]
        /// `publickey` or `publickey-hostbound-v00@openssh.com`.
        public var method: [UInt8]
        /// The public key algorithm: a PinVault key's `sshName` (or its certificate type
        /// when a certificate is used).
        public var algorithm: [UInt8]
        /// The public key (or certificate) blob the request authenticates with.
        public var keyBlob: [UInt8]
        /// The server's host key blob: only in the hostbound method, and then always.
        public var hostKeyBlob: [UInt8]?

        public init(
            sessionIdentifier: [UInt8], user: [UInt8], service: [UInt8], method: [UInt8], algorithm: [UInt8],
            keyBlob: [UInt8], hostKeyBlob: [UInt8]?
        ) {
            self.sessionIdentifier = sessionIdentifier
            self.user = user
            self.service = service
            self.method = method
            self.algorithm = algorithm
            self.keyBlob = keyBlob
            self.hostKeyBlob = hostKeyBlob
        }

        /// Whether the request authenticates with exactly this key blob, under this
        /// algorithm name.
        public func names(keyBlob expected: [UInt8], algorithm name: String) -> Bool {
            keyBlob == expected && algorithm.elementsEqual(name.utf8)
        }

        /// The bytes that are signed (the inverse of `parse`).
        public var encoded: [UInt8] {
            var writer = SSHWireWriter(capacity: 200 + sessionIdentifier.count + user.count + keyBlob.count)
            writer.string(sessionIdentifier)
            writer.byte(SSHSignedData.userauthRequestNumber)
            writer.string(user)
            writer.string(service)
            writer.string(method)
            writer.byte(1)
            writer.string(algorithm)
            writer.string(keyBlob)
            if let hostKeyBlob { writer.string(hostKeyBlob) }
            return writer.bytes
        }
    }

    /// What `ssh-keygen -Y sign` (and git's ssh signing) asks an agent to sign.
    public struct SSHSIGPreimage: Equatable, Sendable {
        /// The application's namespace (`git`, `file`, …): never empty.
        public var namespace: [UInt8]
        public var reserved: [UInt8]
        /// `sha256` or `sha512`.
        public var hashAlgorithm: [UInt8]
        /// The message's hash: 32 or 64 bytes, as `hashAlgorithm` says.
        public var hash: [UInt8]

        public init(namespace: [UInt8], reserved: [UInt8], hashAlgorithm: [UInt8], hash: [UInt8]) {
            self.namespace = namespace
            self.reserved = reserved
            self.hashAlgorithm = hashAlgorithm
            self.hash = hash
        }

        /// The bytes that are signed (the inverse of `parse`).
        public var encoded: [UInt8] {
            var writer = SSHWireWriter(capacity: 32 + namespace.count + reserved.count + hash.count)
            writer.raw(SSHSignedData.sshsigMagic)
            writer.string(namespace)
            writer.string(reserved)
            writer.string(hashAlgorithm)
            writer.string(hash)
            return writer.bytes
        }
    }

    /// SSH_MSG_USERAUTH_REQUEST (RFC 4250 §4.1.2).
    static let userauthRequestNumber: UInt8 = 50
    /// The six bytes that open an SSHSIG preimage, with no length before them.
    static let sshsigMagic = Array("SSHSIG".utf8)
    static let connectionService = Array("ssh-connection".utf8)
    static let publickeyMethod = Array("publickey".utf8)
    static let hostboundMethod = Array("publickey-hostbound-v00@openssh.com".utf8)
    /// PROTOCOL.sshsig's hash algorithms and the size of each hash.
    static let hashSizes: [(name: [UInt8], bytes: Int)] = [(Array("sha256".utf8), 32), (Array("sha512".utf8), 64)]

    /// The data as one of the two, or nil when it is neither exactly.
    public static func parse(_ data: UnsafeRawBufferPointer) -> SSHSignedData? {
        if let request = try? parseUserauthRequest(data) { return .userauth(request) }
        if let preimage = try? parseSSHSIG(data) { return .sshsig(preimage) }
        return nil
    }

    /// An exact userauth request: the layout, the message number, `sig-follows`
    /// TRUE, the service, a known method (the hostbound one with its host key), and no
    /// NUL inside the names OpenSSH reads as C strings.
    public static func parseUserauthRequest(_ data: UnsafeRawBufferPointer) throws(SSHAgentMessageError) -> UserauthRequest {
        var reader = SSHWireReader(data)
        let session = try reader.string()
        guard !session.isEmpty, try reader.byte() == userauthRequestNumber else { throw .notSSHData }
        let user = try reader.cString()
        let service = try reader.cString()
        let method = try reader.cString()
        guard try reader.byte() == 1, service.elementsEqual(connectionService) else { throw .notSSHData }
        let algorithm = try reader.cString()
        let key = try reader.string()
        var hostKey: [UInt8]?
        if method.elementsEqual(hostboundMethod) {
            let blob = try reader.string()
            // A key blob opens with its type's name (RFC 4253 §6.6).
            var inner = SSHWireReader(blob)
            guard try !inner.cString().isEmpty else { throw .notSSHData }
            hostKey = Array(blob)
        } else if !method.elementsEqual(publickeyMethod) {
            throw .notSSHData
        }
        try reader.expectEnd()
        guard !algorithm.isEmpty, !key.isEmpty else { throw .notSSHData }
        return UserauthRequest(
            sessionIdentifier: Array(session), user: Array(user), service: Array(service), method: Array(method),
            algorithm: Array(algorithm), keyBlob: Array(key), hostKeyBlob: hostKey
        )
    }

    /// An exact SSHSIG preimage: the magic, a namespace (not empty, no NUL), the
    /// reserved string, a hash algorithm PROTOCOL.sshsig names and a hash of its size.
    public static func parseSSHSIG(_ data: UnsafeRawBufferPointer) throws(SSHAgentMessageError) -> SSHSIGPreimage {
        guard data.starts(with: sshsigMagic) else { throw .notSSHData }
        var reader = SSHWireReader(UnsafeRawBufferPointer(rebasing: data[sshsigMagic.count...]))
        let namespace = try reader.cString()
        let reserved = try reader.string()
        let algorithm = try reader.cString()
        let hash = try reader.string()
        try reader.expectEnd()
        guard !namespace.isEmpty,
              hashSizes.contains(where: { algorithm.elementsEqual($0.name) && hash.count == $0.bytes })
        else { throw .notSSHData }
        return SSHSIGPreimage(
            namespace: Array(namespace), reserved: Array(reserved), hashAlgorithm: Array(algorithm), hash: Array(hash)
        )
    }

    /// Whether `data` could be meant as SSH data by anyone, judged by layout alone and
    /// far more broadly than `parse` accepts: anything that opens with `SSHSIG`; any
    /// message laid out as a userauth request sshd verifies, with the session
    /// identifier as a string or bare (`hasUserauthLayout`), whatever its names and values; and anything that opens with an SSH string
    /// naming an OpenSSH certificate type (what a CA signs). The first two are what
    /// OpenSSH accepts from a key with a user's login (sshd) or signature (ssh-keygen
    /// -Y verify) behind it; the third what it accepts from a CA key.
    public static func resemblesSSHData(_ data: UnsafeRawBufferPointer) -> Bool {
        data.starts(with: sshsigMagic) || hasUserauthLayout(data) || opensWithCertificateType(data)
    }

    /// How many bytes a bare session identifier may take: the exchange hash of every
    /// key exchange SSH has (SHA-1's 20 bytes to SHA-512's 64), with room below.
    static let bareSessionIdentifierSizes = 16...64

    /// The layouts sshd reconstructs and verifies a user's signature over, whatever the
    /// names and values in them:
    /// - the session identifier as an SSH string (RFC 4252 §7), or — for clients whose
    ///   banner sshd's compatibility table marks SSH_OLD_SESSIONID ("3.0 SecureCRT*",
    ///   "1.7 SecureFX*"; still in OpenSSH 9 and 10) — bare, with no length before it;
    /// - then byte 50 and three strings (user, service, method), followed by either
    ///   `publickey`'s boolean, algorithm and key (and `-hostbound`'s host key), or
    ///   `hostbased`'s algorithm, key, client host and client user.
    private static func hasUserauthLayout(_ data: UnsafeRawBufferPointer) -> Bool {
        var reader = SSHWireReader(data)
        if (try? reader.string()) != nil, requestFollows(reader) { return true }
        return bareSessionIdentifierSizes.contains { size in
            size < data.count && requestFollows(SSHWireReader(UnsafeRawBufferPointer(rebasing: data[size...])))
        }
    }

    /// Whether what `reader` has left is a userauth request after its session identifier.
    private static func requestFollows(_ reader: SSHWireReader) -> Bool {
        var reader = reader
        do throws(SSHAgentMessageError) {
            guard try reader.byte() == userauthRequestNumber else { return false }
            for _ in 0..<3 { _ = try reader.string() }  // user, service, method
            if isHostbasedRest(reader) { return true }
            _ = try reader.byte()  // sig-follows
            for _ in 0..<2 { _ = try reader.string() }  // algorithm, key
            if !reader.isAtEnd { _ = try reader.string() }  // the host key
            return reader.isAtEnd
        } catch {
            return false
        }
    }

    /// `hostbased`'s algorithm, key, client host and client user, and nothing more.
    private static func isHostbasedRest(_ reader: SSHWireReader) -> Bool {
        var reader = reader
        for _ in 0..<4 { guard (try? reader.string()) != nil else { return false } }
        return reader.isAtEnd
    }

    /// `…-cert-v01@openssh.com` (PROTOCOL.certkeys), and its predecessor `-v00`.
    private static func opensWithCertificateType(_ data: UnsafeRawBufferPointer) -> Bool {
        var reader = SSHWireReader(data)
        guard let name = try? reader.string() else { return false }
        return name.ends(with: Array("-cert-v01@openssh.com".utf8)) || name.ends(with: Array("-cert-v00@openssh.com".utf8))
    }
}

extension UnsafeRawBufferPointer {
    fileprivate func ends(with suffix: [UInt8]) -> Bool {
        count >= suffix.count && self[(count - suffix.count)...].elementsEqual(suffix)
    }
}

extension SSHSignedData.UserauthRequest {
    /// Whether the request authenticates with an OpenSSH certificate of `key`, under
    /// the certificate's algorithm name.
    public func namesCertificate(of key: SSHKey) -> Bool {
        guard algorithm.elementsEqual(key.algorithm.sshCertificateName.utf8),
              let certificate = try? keyBlob.withUnsafeBytes({ bytes throws(SSHAgentMessageError) in try SSHCertificate(blob: bytes) })
        else { return false }
        return certificate.key == key
    }

    /// Whether the request authenticates with `key` itself or an OpenSSH certificate of
    /// it, each under its own algorithm name.
    public func names(_ key: SSHKey) -> Bool {
        names(keyBlob: key.blob, algorithm: key.algorithm.sshName) || namesCertificate(of: key)
    }
}
