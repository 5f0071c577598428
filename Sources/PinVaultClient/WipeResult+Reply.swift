import PinVaultProtocol

extension WipeResult {
    /// Decodes a `Wipe` reply: `user`, `deletedKeyIds`.
    static func decode(_ reply: ParameterDecoder) throws(ParameterError) -> WipeResult {
        let keyIdLength = ProtocolLimits.keyIdHexDigits...ProtocolLimits.keyIdHexDigits
        return WipeResult(
            user: try reply.string("user", required: true, bytes: ProtocolLimits.userBytes) ?? "",
            deletedKeyIds: try reply.strings("deletedKeyIds", required: true, bytes: keyIdLength) ?? [],
            failedAttemptsCleared: try reply.failedAttemptsCleared()
        )
    }
}
