import PinVaultProtocol

extension Authentication {
    /// Decodes an `Authenticate` reply: `keyId`, `publicKey`, `signature`,
    /// `pinPolicyOutdated`, `failedAttemptsCleared` (absent from older daemons: 0).
    static func decode(_ reply: ParameterDecoder) throws(ParameterError) -> Authentication {
        let keyBytes = ProtocolLimits.publicKeyBytes...ProtocolLimits.publicKeyBytes
        let signatureBytes = ProtocolLimits.signatureBytes...ProtocolLimits.signatureBytes
        return Authentication(
            keyId: try reply.keyID(required: true)?.hex ?? "",
            publicKey: try reply.base64("publicKey", required: true, decodedBytes: keyBytes) ?? [],
            signature: try reply.base64("signature", required: true, decodedBytes: signatureBytes) ?? [],
            pinPolicyOutdated: try reply.bool("pinPolicyOutdated", required: true) ?? false,
            failedAttemptsCleared: try reply.failedAttemptsCleared()
        )
    }
}
