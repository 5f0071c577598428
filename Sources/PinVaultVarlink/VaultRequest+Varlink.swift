import PinVaultCore
import PinVaultCrypto
import PinVaultEngine
import PinVaultProtocol

extension VaultRequest {
    /// Decodes the parameters of the method named `name`; nil for a method the
    /// interface lacks. The parameters allowed are those the interface file declares
    /// (`VaultMethod.parameterNames`); unknown parameters, wrong types and out-of-range
    /// values throw naming the parameter.
    /// `connection` is the call's connection, which an Unlock with `bindToConnection`
    /// binds its session to.
    static func decode(method name: String, _ p: ParameterDecoder, connection: UInt64) throws(ParameterError) -> VaultRequest? {
        guard let method = VaultMethod(rawValue: name) else { return nil }
        try p.rejectUnknown(allowed: method.parameterNames)
        switch method {
        case .getPolicy:
            return .getPolicy
        case .checkPin:
            return .checkPin(pin: try pin(p, "pin"))
        case .register:
            return .register(
                user: try user(p),
                pin: try pin(p, "pin"),
                label: try text(p, "label", required: false, bytes: ProtocolLimits.labelBytes),
                purpose: try purpose(p),
                algorithm: try algorithm(p)
            )
        case .list:
            return .list(
                user: try text(p, "user", required: false, bytes: ProtocolLimits.userBytes),
                ownerUid: try uid(p, "ownerUid", required: false),
                purpose: try p.string("purpose", required: false, bytes: 1...32).map { name throws(ParameterError) in
                    guard let purpose = KeyPurpose(rawValue: name) else { throw ParameterError("purpose", .malformed) }
                    return purpose
                }
            )
        case .authenticate:
            return .authenticate(
                user: try user(p),
                keyId: try p.keyID(required: false),
                pin: try pin(p, "pin"),
                challenge: try p.base64("challenge", required: true, decodedBytes: ProtocolLimits.challengeBytes) ?? [],
                ownerUid: try uid(p, "ownerUid", required: false)
            )
        case .changePin:
            return .changePin(
                user: try user(p),
                keyId: try p.keyID(required: false),
                currentPin: try pin(p, "currentPin"),
                newPin: try pin(p, "newPin")
            )
        case .beginUnregister:
            return .beginUnregister(
                user: try user(p),
                keyId: try p.keyID(required: false),
                pin: try p.secret("pin", required: false, bytes: ProtocolLimits.pinBytes)
            )
        case .commitUnregister, .abortUnregister:
            guard let keyId = try p.keyID(required: true) else { throw ParameterError("keyId", .missing) }
            let token = try token(p)
            return method == .commitUnregister
                ? .commitUnregister(keyId: keyId, token: token)
                : .abortUnregister(keyId: keyId, token: token)
        case .wipe:
            return .wipe(
                user: try user(p),
                keyId: try p.keyID(required: false),
                pin: try p.secret("pin", required: false, bytes: ProtocolLimits.pinBytes),
                ownerUid: try uid(p, "ownerUid", required: false)
            )
        case .unblock:
            guard let owner = try uid(p, "ownerUid", required: true),
                  let keyId = try p.keyID(required: true)
            else { throw ParameterError("ownerUid", .missing) }
            return .unblock(ownerUid: owner, user: try user(p), keyId: keyId)
        case .reset:
            let confirm = try p.string("confirm", required: true, bytes: 1...16)
            guard confirm == ProtocolLimits.resetConfirmation else { throw ParameterError("confirm", .malformed) }
            return .reset
        case .getStats:
            return .getStats
        case .unlock:
            let user = try user(p)
            let keyId = try p.keyID(required: false)
            let pin = try pin(p, "pin")
            guard let ttl = try p.int("ttlSeconds", required: true, range: ProtocolLimits.ttlSeconds) else {
                throw ParameterError("ttlSeconds", .missing)
            }
            let bind = try p.bool("bindToConnection", required: false) ?? false
            let constraints = SessionConstraints(
                confirmEachUse: try p.bool("confirmEachUse", required: false) ?? false,
                allowForwarding: try p.bool("allowForwarding", required: false) ?? false
            )
            return .unlock(
                user: user, keyId: keyId, pin: pin, ttlSeconds: ttl, boundConnection: bind ? connection : nil,
                constraints: constraints
            )
        case .lock:
            return .lock(keyId: try p.keyID(required: false), access: nil)
        case .sign:
            guard let keyId = try p.keyID(required: true) else { throw ParameterError("keyId", .missing) }
            let challenge = try p.base64("challenge", required: true, decodedBytes: ProtocolLimits.signMessageBytes) ?? []
            return .sign(keyId: keyId, message: challenge, access: .sign, context: .plain)
        case .agentSign:
            guard let keyId = try p.keyID(required: true) else { throw ParameterError("keyId", .missing) }
            let data = try p.base64("challenge", required: true, decodedBytes: ProtocolLimits.agentDataBytes) ?? []
            let context = SigningContext(
                forwarded: try p.bool("forwarded", required: false) ?? false,
                confirmed: try p.bool("confirmed", required: false) ?? false,
                doorRules: SessionConstraints(
                    confirmEachUse: try p.bool("confirmEachUse", required: false) ?? false,
                    allowForwarding: try p.bool("allowForwarding", required: false) ?? false
                )
            )
            return .sign(keyId: keyId, message: data, access: .userAgent, context: context)
        case .signDigest:
            guard let keyId = try p.keyID(required: true) else { throw ParameterError("keyId", .missing) }
            let digest = try p.base64("digest", required: true, decodedBytes: ProtocolLimits.digestBytes) ?? []
            return .sign(keyId: keyId, message: digest, access: .signDigest, context: .plain)
        case .listPasskeys:
            let rpId = try text(p, "rpId", required: false, bytes: 1...255)
            return .passkeys(channel: nil, rpIdHash: rpId.map { SHA256.hash(Array($0.utf8)) })
        case .removePasskey:
            let credentialId = try p.base64("credentialId", required: true, decodedBytes: PasskeySeed.credentialIdSizes) ?? []
            return .deletePasskey(channel: nil, credentialId: credentialId)
        case .addSSHCertificate, .removeSSHCertificate:
            guard let keyId = try p.keyID(required: true) else { throw ParameterError("keyId", .missing) }
            let certificate = try p.base64("certificate", required: true, decodedBytes: ProtocolLimits.certificateBytes) ?? []
            return method == .addSSHCertificate
                ? .addSSHCertificate(keyId: keyId, certificate: certificate)
                : .removeSSHCertificate(keyId: keyId, certificate: certificate)
        }
    }

    private static func user(_ p: ParameterDecoder) throws(ParameterError) -> String {
        guard let user = try text(p, "user", required: true, bytes: ProtocolLimits.userBytes) else {
            throw ParameterError("user", .missing)
        }
        return user
    }

    /// A non-secret string with none of the `ControlCharacters` (C0, DEL, C1, bidi
    /// controls, line and paragraph separators, U+FEFF): they have no place in an
    /// account name or label, and would only make logs and tables lie.
    private static func text(_ p: ParameterDecoder, _ name: String, required: Bool, bytes: ClosedRange<Int>) throws(ParameterError) -> String? {
        guard let value = try p.string(name, required: required, bytes: bytes) else { return nil }
        guard !ControlCharacters.occur(in: value) else {
            throw ParameterError(name, .malformed)
        }
        return value
    }

    /// Register's algorithm: one of `KeyAlgorithm`; `ed25519` when absent.
    private static func algorithm(_ p: ParameterDecoder) throws(ParameterError) -> KeyAlgorithm {
        guard let name = try p.string("algorithm", required: false, bytes: 1...32) else { return .default }
        guard let algorithm = KeyAlgorithm(rawValue: name) else { throw ParameterError("algorithm", .malformed) }
        return algorithm
    }

    /// Register's purpose: one a new credential may have (never `legacy`, which only
    /// credentials made before purposes existed read as); `authenticate` when absent.
    private static func purpose(_ p: ParameterDecoder) throws(ParameterError) -> KeyPurpose {
        guard let name = try p.string("purpose", required: false, bytes: 1...32) else { return .authenticate }
        guard let purpose = KeyPurpose(rawValue: name), KeyPurpose.registrable.contains(purpose) else {
            throw ParameterError("purpose", .malformed)
        }
        return purpose
    }

    private static func pin(_ p: ParameterDecoder, _ name: String) throws(ParameterError) -> SecretBytes {
        guard let pin = try p.secret(name, required: true, bytes: ProtocolLimits.pinBytes) else {
            throw ParameterError(name, .missing)
        }
        return pin
    }

    private static func uid(_ p: ParameterDecoder, _ name: String, required: Bool) throws(ParameterError) -> UInt32? {
        try p.int(name, required: required, range: ProtocolLimits.uidRange).map { UInt32($0) }
    }

    private static func token(_ p: ParameterDecoder) throws(ParameterError) -> SecretBytes {
        guard let token = try p.secretBase64(
            "token", required: true, alphabet: .url,
            decodedBytes: ProtocolLimits.tokenBytes...ProtocolLimits.tokenBytes
        ) else {
            throw ParameterError("token", .missing)
        }
        return token
    }
}
