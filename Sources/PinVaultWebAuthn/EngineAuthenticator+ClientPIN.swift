import PinVaultCBOR
import PinVaultCrypto
import PinVaultEngine

/// ClientPIN (CTAP 2.1 §6.5.5): getPINRetries, getKeyAgreement, setPIN, getPinToken and
/// getPinUvAuthTokenUsingPinWithPermissions, with PIN/UV auth protocols one and two.
extension EngineAuthenticator {
    func clientPin(_ p: CTAPParameters, _ caller: Caller, _ state: ChannelState, _ reply: Reply) throws(CTAPFailure) {
        guard let subcommand = try p.int(2) else { throw CTAPFailure(.missingParameter) }
        switch subcommand {
        case 0x01:
            submit(.securityKeyRetries, caller) { result in
                switch result {
                case .success(.securityKeyRetries(let remaining)): reply(.ok, .map(CBORMap([(.int(3), .int(remaining))])))
                case .failure(.noSuchCredential): reply(.pinNotSet)
                case .failure(let error): reply(Self.status(of: error))
                case .success: reply(.other)
                }
            }
        case 0x02:
            _ = try pinProtocol(p)
            reply(.ok, .map(CBORMap([(.int(1), coseKey(keyAgreementPublicKey))])))
        case 0x03:
            try setPin(p, caller, reply)
        case 0x04:
            try changePin(p, caller, state, reply)
        case 0x05, 0x09:
            try pinToken(p, caller, state, reply, withPermissions: subcommand == 0x09)
        default:
            throw CTAPFailure(.invalidSubcommand)
        }
    }

    private func pinProtocol(_ p: CTAPParameters) throws(CTAPFailure) -> PinUvAuthProtocol {
        guard let number = try p.int(1), let pinProtocol = PinUvAuthProtocol(rawValue: number) else {
            throw CTAPFailure(.invalidParameter)
        }
        return pinProtocol
    }

    /// The key-agreement key as COSE: EC2, ECDH-ES+HKDF-256 (-25), P-256.
    private func coseKey(_ point: [UInt8]) -> CBORValue {
        .map(CBORMap([
            (.int(1), .int(2)), (.int(3), .int(-25)), (.int(-1), .int(1)),
            (.int(-2), .bytes(Array(point[1..<33]))), (.int(-3), .bytes(Array(point[33..<65]))),
        ]))
    }

    /// The platform's key agreement (parameter 3) and the shared secret with it.
    private func sharedSecret(_ p: CTAPParameters, _ pinProtocol: PinUvAuthProtocol) throws(CTAPFailure) -> SecretBytes {
        guard let key = try p.map(3) else { throw CTAPFailure(.missingParameter) }
        guard key[1]?.intValue == 2, key[-1]?.intValue == 1, let x = key[-2]?.bytesValue, let y = key[-3]?.bytesValue,
              x.count == 32, y.count == 32
        else { throw CTAPFailure(.invalidParameter) }
        do {
            return try pinProtocol.sharedSecret(keyAgreementHolder, platformKey: [4] + x + y)
        } catch {
            throw CTAPFailure(.invalidParameter)
        }
    }

    private func setPin(_ p: CTAPParameters, _ caller: Caller, _ reply: Reply) throws(CTAPFailure) {
        let pinProtocol = try pinProtocol(p)
        let shared = try sharedSecret(p, pinProtocol)
        guard let newPinEnc = try p.bytes(5), let param = try p.bytes(4) else { throw CTAPFailure(.missingParameter) }
        guard pinProtocol.verify(key: shared, message: newPinEnc, signature: param) else { throw CTAPFailure(.pinAuthInvalid) }
        let pin = try Self.pin(from: newPinEnc, shared, pinProtocol)
        submit(.register(user: Self.securityKeyUser, pin: pin, label: nil, purpose: .webauthn), caller) { result in
            switch result {
            case .success: reply(.ok)
            case .failure(.tooManyCredentials): reply(.notAllowed)  // a PIN is set already: changePIN changes it
            case .failure(let error): reply(Self.status(of: error))
            }
        }
    }

    private func changePin(_ p: CTAPParameters, _ caller: Caller, _ state: ChannelState, _ reply: Reply) throws(CTAPFailure) {
        let pinProtocol = try pinProtocol(p)
        let shared = try sharedSecret(p, pinProtocol)
        guard let newPinEnc = try p.bytes(5), let pinHashEnc = try p.bytes(6), let param = try p.bytes(4) else {
            throw CTAPFailure(.missingParameter)
        }
        guard pinProtocol.verify(key: shared, message: newPinEnc + pinHashEnc, signature: param) else { throw CTAPFailure(.pinAuthInvalid) }
        let hash: SecretBytes
        do { hash = try pinProtocol.decrypt(sharedSecret: shared, pinHashEnc) } catch { throw CTAPFailure(.pinAuthInvalid) }
        guard hash.count == SecurityKeyPin.hashSize else { throw CTAPFailure(.pinAuthInvalid) }
        let pin = try Self.pin(from: newPinEnc, shared, pinProtocol)
        invalidateToken(state)
        submit(.securityKeyChangePin(pinHash: hash, newPin: pin), caller) { result in
            switch result {
            case .success: reply(.ok)
            case .failure(.noSuchCredential): reply(.pinNotSet)
            case .failure(let error): reply(Self.status(of: error))
            }
        }
    }

    /// The account name a security key made by setPIN is listed under.
    static let securityKeyUser = "security-key"

    /// newPinEnc's PIN: 64 bytes padded with zeros (CTAP), 4 to 63 bytes of it the PIN.
    private static func pin(from newPinEnc: [UInt8], _ shared: SecretBytes, _ pinProtocol: PinUvAuthProtocol) throws(CTAPFailure) -> SecretBytes {
        let padded: SecretBytes
        do { padded = try pinProtocol.decrypt(sharedSecret: shared, newPinEnc) } catch { throw CTAPFailure(.pinAuthInvalid) }
        guard padded.count == 64 else { throw CTAPFailure(.pinPolicyViolation) }
        let length = padded.withUnsafeBytes { $0.firstIndex(of: 0) ?? 64 }
        guard (4...63).contains(length) else { throw CTAPFailure(.pinPolicyViolation) }
        padded.truncate(to: length)
        return padded
    }

    /// Makes the channel's token and gives it to the channel alone: once this returns, the
    /// channel's state is its only holder, so that its end releases (and zeroes) it.
    /// The token encrypted for the platform, or nil.
    private func newToken(_ state: ChannelState, _ shared: SecretBytes, _ pinProtocol: PinUvAuthProtocol) -> [UInt8]? {
        guard let token = try? SecretBytes.random(count: 32), let encrypted = try? pinProtocol.encrypt(sharedSecret: shared, token) else {
            return nil
        }
        setToken(state, token, pinProtocol)
        return encrypted
    }

    private func pinToken(
        _ p: CTAPParameters, _ caller: Caller, _ state: ChannelState, _ reply: Reply, withPermissions: Bool
    ) throws(CTAPFailure) {
        let pinProtocol = try pinProtocol(p)
        let shared = try sharedSecret(p, pinProtocol)
        guard let pinHashEnc = try p.bytes(6) else { throw CTAPFailure(.missingParameter) }
        // getPinToken (the CTAP 2.0 way) grants what 2.0 knew: mc and ga.
        let permissions = withPermissions ? try p.int(9) ?? 0 : 0x03
        guard (1...0xff).contains(permissions) else { throw CTAPFailure(.invalidParameter) }
        guard permissions & ~0x07 == 0 else { throw CTAPFailure(.unsupportedOption) }
        let rpId = withPermissions ? try p.text(10, required: false) : nil
        let hash: SecretBytes
        do { hash = try pinProtocol.decrypt(sharedSecret: shared, pinHashEnc) } catch { throw CTAPFailure(.pinAuthInvalid) }
        guard hash.count == SecurityKeyPin.hashSize else { throw CTAPFailure(.pinAuthInvalid) }
        invalidateToken(state)
        submit(.securityKeyToken(pinHash: hash, channel: state.key, permissions: UInt8(permissions), rpId: rpId), caller) {
            [self] result in
            switch result {
            case .success:
                guard let encrypted = newToken(state, shared, pinProtocol) else { return reply(.other) }
                reply(.ok, .map(CBORMap([(.int(2), .bytes(encrypted))])))
            case .failure(.noSuchCredential): reply(.pinNotSet)
            case .failure(let error): reply(Self.status(of: error))
            }
        }
    }
}
