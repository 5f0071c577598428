import PinVaultCrypto
import PinVaultProtocol

extension PinVaultClient {
    /// Writes one call of `method` into a zeroing buffer, wipes `secrets` (the PINs it
    /// carries) as soon as they are in it, and exchanges it for the reply, which
    /// `decode` reads. A reply that does not decode is a `.protocolError` naming the
    /// parameter, never its value.
    func call<T: Sendable>(
        _ method: VaultMethod,
        wiping secrets: [SecretBytes] = [],
        _ parameters: (inout JSONObjectWriter) -> Void,
        decode: @escaping @Sendable (ParameterDecoder) throws(ParameterError) -> T
    ) async throws(PinVaultError) -> T {
        let frame = ReplyBuffer(capacity: 1024)
        VarlinkCall.append(method: method.qualifiedName, to: frame, parameters)
        for secret in secrets { secret.wipe() }
        guard !Task.isCancelled else {
            frame.zero()
            throw .cancelled
        }
        return try await connection.exchange(frame) { reply throws(PinVaultError) in
            do throws(ParameterError) {
                return try decode(reply)
            } catch {
                throw .protocolError("the reply's \"\(error.parameter)\" is \(Self.describe(error.reason))")
            }
        }
    }

    /// `call`'s way for a caller on an event loop: the result goes to `completion`, on
    /// the connection's queue, with no hop through Swift concurrency.
    func call<T: Sendable>(
        _ method: VaultMethod,
        _ parameters: (inout JSONObjectWriter) -> Void,
        decode: @escaping @Sendable (ParameterDecoder) throws(ParameterError) -> T,
        completion: @escaping @Sendable (Result<T, PinVaultError>) -> Void
    ) {
        let frame = ReplyBuffer(capacity: 1024)
        VarlinkCall.append(method: method.qualifiedName, to: frame, parameters)
        connection.exchange(frame, decode: { reply throws(PinVaultError) in
            do throws(ParameterError) {
                return try decode(reply)
            } catch {
                throw .protocolError("the reply's \"\(error.parameter)\" is \(Self.describe(error.reason))")
            }
        }, completion: completion)
    }

    /// Sends `CommitUnregister` or `AbortUnregister`, writing the token straight from
    /// its secret memory.
    func finishUnregistration(_ method: VaultMethod, keyId: String, token: UnregistrationToken) async throws(PinVaultError) {
        try ClientLimits.checkKeyId(keyId)
        try ClientLimits.checkToken(token)
        let frame = ReplyBuffer(capacity: 256)
        token.withSecret { secret in
            VarlinkCall.append(method: method.qualifiedName, to: frame) { parameters in
                parameters.field("keyId", keyId)
                if let secret { parameters.secretField("token", secret, encoding: .raw) }
            }
        }
        guard !Task.isCancelled else {
            frame.zero()
            throw .cancelled
        }
        try await connection.exchange(frame) { _ throws(PinVaultError) in }
    }

    /// What a reply parameter's problem is, in words.
    static func describe(_ reason: ParameterError.Reason) -> String {
        switch reason {
        case .missing: "missing"
        case .wrongType: "of the wrong type"
        case .outOfRange: "out of range"
        case .malformed: "malformed"
        case .unknown: "unexpected"
        case .outOfMemory: "too large for secret memory"
        }
    }
}
