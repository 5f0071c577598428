import PinVaultCrypto
import PinVaultProtocol

/// One of the caller's passkeys, as `ListPasskeys` answers it: what a relying party said
/// of a discoverable credential the caller's security key made. Public data only.
public struct Passkey: Sendable, Equatable {
    /// The credential id the relying party keeps (16–32 bytes).
    public let credentialId: [UInt8]
    /// The relying party's id (a domain name).
    public let rpId: String
    /// The relying party's handle of its user.
    public let userHandle: [UInt8]
    public let userName: String?
    public let displayName: String?
    public let algorithm: KeyAlgorithm
    /// Unix seconds.
    public let createdAt: Int64

    static func decode(_ object: ParameterDecoder) throws(ParameterError) -> Passkey {
        guard let credentialId = try object.base64("credentialId", required: true, decodedBytes: PasskeySeed.credentialIdSizes),
              let rpId = try object.string("rpId", required: true, bytes: 1...255),
              let userHandle = try object.base64("userHandle", required: true, decodedBytes: 1...64),
              let algorithm = try object.enumeration("algorithm", required: true, as: KeyAlgorithm.self),
              let createdAt = try object.time("createdAt", required: true)
        else { throw ParameterError("passkeys", .missing) }
        return Passkey(
            credentialId: credentialId, rpId: rpId, userHandle: userHandle,
            userName: try object.string("userName", required: false, bytes: 0...64),
            displayName: try object.string("displayName", required: false, bytes: 0...64),
            algorithm: algorithm, createdAt: createdAt)
    }
}

extension PinVaultClient {
    /// The caller's passkeys, oldest first, of the relying party `rpId` when given.
    public func passkeys(rpId: String? = nil) async throws(PinVaultError) -> [Passkey] {
        if let rpId, !(1...255).contains(rpId.utf8.count) { throw .invalidParameter("rpId") }
        return try await call(.listPasskeys) { parameters in
            parameters.optionalField("rpId", rpId)
        } decode: { reply throws(ParameterError) in
            var passkeys: [Passkey] = []
            for object in try reply.objects("passkeys", required: true) ?? [] {
                passkeys.append(try Passkey.decode(object))
            }
            return passkeys
        }
    }

    /// Deletes the caller's passkey `credentialId`.
    public func removePasskey(credentialId: [UInt8]) async throws(PinVaultError) {
        guard PasskeySeed.credentialIdSizes.contains(credentialId.count) else { throw .invalidParameter("credentialId") }
        _ = try await call(.removePasskey) { parameters in
            parameters.field("credentialId", Base64.encodedString(credentialId))
        } decode: { _ throws(ParameterError) in () }
    }
}
