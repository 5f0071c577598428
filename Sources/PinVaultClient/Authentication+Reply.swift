import PinVaultProtocol

extension Authentication {
    /// Decodes an `Authenticate` reply: `keyId`, `publicKey`, `signature`,
    /// `pinPolicyOutdated`, `failedAttemptsCleared` (absent from older daemons: 0).
    static func decode(_ reply: ParameterDecoder) throws(ParameterError) -> Authentication {
        return Authentication(
            keyId: try reply.keyID(required: true)?.hex ?? "",
            publicKey: try reply.base64("publicKey", required: true, decodedBytes: ProtocolLimits.publicKeyBytes) ?? [],
            signature: try reply.base64("signature", required: true, decodedBytes: ProtocolLimits.signatureBytes) ?? [],
            pinPolicyOutdated: try reply.bool("pinPolicyOutdated", required: true) ?? false,
            failedAttemptsCleared: try reply.failedAttemptsCleared()
        )
    }
}
