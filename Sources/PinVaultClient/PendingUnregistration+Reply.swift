import FoundationEssentials
import PinVaultCrypto
import PinVaultProtocol

extension PendingUnregistration {
    /// Decodes a `BeginUnregister` reply: `keyId`, `token`, `expiresAt`. The token's
    /// text goes from the reply frame straight into secret memory, and must be 43
    /// characters of unpadded base64url.
    static func decode(_ reply: ParameterDecoder) throws(ParameterError) -> PendingUnregistration {
        let keyId = try reply.keyID(required: true)?.hex ?? ""
        let length = ProtocolLimits.tokenCharacters
        guard let token = try reply.secret("token", required: true, bytes: length...length) else {
            throw ParameterError("token", .missing)
        }
        let wellFormed = token.withUnsafeBytes { text in text.allSatisfy(Self.isBase64URL) }
        guard wellFormed else {
            token.wipe()
            throw ParameterError("token", .malformed)
        }
        let expiresAt = try reply.time("expiresAt", required: true) ?? 0
        return PendingUnregistration(
            keyId: keyId, token: UnregistrationToken(secret: token), expiresAt: Date(unixSeconds: expiresAt),
            failedAttemptsCleared: try reply.failedAttemptsCleared()
        )
    }

    /// Whether `byte` is a letter of the base64url alphabet (RFC 4648 §5).
    private static func isBase64URL(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "a")...UInt8(ascii: "z"),
             UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "-"), UInt8(ascii: "_"):
            true
        default:
            false
        }
    }
}
