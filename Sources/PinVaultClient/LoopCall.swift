import FoundationEssentials
import PinVaultCrypto
import PinVaultProtocol

/// The calls of a caller that owns its connection's I/O — the per-user agent's event
/// loop, which writes each call and reads each reply on its own thread, several calls
/// in a row (Varlink answers them in order). Each call is one frame, checked as
/// `PinVaultClient`'s method of the same name checks it; each reply frame (without its
/// NUL) decodes into that method's result, or the error it names. The parameters and
/// the decoding are `PinVaultClient`'s own: one way to write a call and read its reply.
public enum LoopCall {
    /// `AgentSign` (`PinVaultClient.agentSign`).
    public static func agentSign(
        keyId: String, data: [UInt8], forwarded: Bool, confirmed: Bool = false, rules: AgentKeyRules
    ) throws(PinVaultError) -> ReplyBuffer {
        try PinVaultClient.checkAgentSign(keyId: keyId, data: data)
        return frame(.agentSign, PinVaultClient.agentSignParameters(keyId, data, forwarded, confirmed, rules))
    }

    /// `List` of the caller's own credentials (`PinVaultClient.list`).
    public static func list(user: String? = nil, purpose: Credential.Purpose?) throws(PinVaultError) -> ReplyBuffer {
        if let user { try ClientLimits.checkUser(user) }
        return frame(.list, PinVaultClient.listParameters(user, nil, purpose))
    }

    /// `Lock` (`PinVaultClient.lock`).
    public static func lock(keyId: String?) throws(PinVaultError) -> ReplyBuffer {
        try ClientLimits.checkKeyId(keyId)
        return frame(.lock, PinVaultClient.lockParameters(keyId))
    }

    /// `Unlock` (`PinVaultClient.unlock`), not bound to the connection. Consumes `pin`:
    /// its bytes go from secret memory into the frame, a zeroing buffer, and the PIN is
    /// wiped, whether the call could be written or not.
    public static func unlock(
        user: String, keyId: String, pin: PIN, ttl: Duration, confirmEachUse: Bool, allowForwarding: Bool
    ) throws(PinVaultError) -> ReplyBuffer {
        let secrets = try PIN.take([(pin, "pin")])
        defer { for secret in secrets { secret.wipe() } }
        try ClientLimits.checkUser(user)
        try ClientLimits.checkKeyId(keyId)
        let seconds = try ClientLimits.ttlSeconds(ttl)
        return frame(
            .unlock, PinVaultClient.unlockParameters(user, keyId, secrets[0], seconds, false, confirmEachUse, allowForwarding)
        )
    }

    /// A signature reply (`agentSign`).
    public static func signature(_ reply: UnsafeRawBufferPointer) -> Result<[UInt8], PinVaultError> {
        decode(reply, PinVaultClient.signature)
    }

    /// A `List` reply.
    public static func credentials(_ reply: UnsafeRawBufferPointer) -> Result<[Credential], PinVaultError> {
        decode(reply, PinVaultClient.credentials)
    }

    /// A `Lock` reply: the key ids that were unlocked.
    public static func lockedKeyIds(_ reply: UnsafeRawBufferPointer) -> Result<[String], PinVaultError> {
        decode(reply, PinVaultClient.lockedKeyIds)
    }

    /// An `Unlock` reply.
    public static func unlockSession(_ reply: UnsafeRawBufferPointer) -> Result<UnlockSession, PinVaultError> {
        decode(reply, PinVaultClient.unlockSession)
    }

    private static func frame(_ method: VaultMethod, _ parameters: (inout JSONObjectWriter) -> Void) -> ReplyBuffer {
        let frame = ReplyBuffer(capacity: 1024)
        VarlinkCall.append(method: method.qualifiedName, to: frame, parameters)
        return frame
    }

    private static func decode<T>(
        _ reply: UnsafeRawBufferPointer, _ decode: (ParameterDecoder) throws(ParameterError) -> T
    ) -> Result<T, PinVaultError> {
        VarlinkConnection.interpret(reply) { parameters throws(PinVaultError) in
            do throws(ParameterError) {
                return try decode(parameters)
            } catch {
                throw .protocolError("the reply's \"\(error.parameter)\" is \(PinVaultClient.describe(error.reason))")
            }
        }
    }
}

/// The parameters and reply decoders `PinVaultClient` and `LoopCall` share.
extension PinVaultClient {
    static func listParameters(_ user: String?, _ ownerUid: UInt32?, _ purpose: Credential.Purpose?) -> (inout JSONObjectWriter) -> Void {
        { parameters in
            parameters.optionalField("user", user)
            parameters.optionalField("ownerUid", ownerUid.map(Int64.init))
            parameters.optionalField("purpose", purpose?.rawValue)
        }
    }

    @Sendable static func credentials(_ reply: ParameterDecoder) throws(ParameterError) -> [Credential] {
        let objects = try reply.objects("credentials", required: true) ?? []
        var credentials: [Credential] = []
        credentials.reserveCapacity(objects.count)
        for object in objects {
            credentials.append(try Credential(from: object))
        }
        return credentials
    }

    static func lockParameters(_ keyId: String?) -> (inout JSONObjectWriter) -> Void {
        { parameters in parameters.optionalField("keyId", keyId) }
    }

    @Sendable static func lockedKeyIds(_ reply: ParameterDecoder) throws(ParameterError) -> [String] {
        try reply.strings("lockedKeyIds", required: true, bytes: 1...64) ?? []
    }

    static func unlockParameters(
        _ user: String, _ keyId: String?, _ pin: SecretBytes, _ seconds: Int64, _ bindToConnection: Bool,
        _ confirmEachUse: Bool, _ allowForwarding: Bool
    ) -> (inout JSONObjectWriter) -> Void {
        { parameters in
            parameters.field("user", user)
            parameters.optionalField("keyId", keyId)
            parameters.secretField("pin", pin, encoding: .raw)
            parameters.field("ttlSeconds", seconds)
            if bindToConnection { parameters.field("bindToConnection", true) }
            if confirmEachUse { parameters.field("confirmEachUse", true) }
            if allowForwarding { parameters.field("allowForwarding", true) }
        }
    }

    @Sendable static func unlockSession(_ reply: ParameterDecoder) throws(ParameterError) -> UnlockSession {
        UnlockSession(
            keyId: try reply.keyID(required: true)?.hex ?? "",
            unlockedUntil: Date(unixSeconds: try reply.time("unlockedUntil", required: true) ?? 0),
            failedAttemptsCleared: Int(try reply.int("failedAttemptsCleared", required: true, range: 0...Int64.max) ?? 0)
        )
    }
}
