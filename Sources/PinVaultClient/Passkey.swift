import PinVaultCrypto
import PinVaultProtocol

extension PinVaultClient {
    /// The caller's passkeys, oldest first, of the relying party `rpId` when given.
    public func passkeys(rpId: String? = nil) async throws(PinVaultError) -> [Passkey] {
        if let rpId, !(1...255).contains(rpId.utf8.count) { throw .invalidParameter("rpId") }
        return try await call(.listPasskeys) { parameters in
            parameters.optionalField("rpId", rpId)
        } decode: { reply throws(ParameterError) in
            var passkeys: [Passkey] = []
            for object in try reply.objects("passkeys", required: true) ?? [] {
                passkeys.append(try Passkey(from: object))
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
