import PinVaultCBOR
import PinVaultCrypto
import PinVaultEngine

/// CredentialManagement (CTAP 2.1 §6.8): getCredsMetadata, enumerateRPs (+ getNext),
/// enumerateCredentials (+ getNext) and deleteCredential, under a token with `cm`. Each
/// request proves the token: pinUvAuthParam = authenticate(token, subCommand ‖
/// subCommandParams).
extension EngineAuthenticator {
    func credentialManagement(_ p: CTAPParameters, _ caller: Caller, _ state: ChannelState, _ reply: Reply) throws(CTAPFailure) {
        guard let subcommand = try p.int(1) else { throw CTAPFailure(.missingParameter) }
        // The getNext subcommands take no proof: they continue what a proven one began.
        if subcommand == 0x03 || subcommand == 0x05 {
            guard let next = popNextManaged(state) else { return reply(.notAllowed) }
            return reply(.ok, next)
        }
        let subParams = try p.map(2, required: false)
        guard let param = try p.bytes(4, required: false) else { throw CTAPFailure(.pinRequired) }
        guard let number = try p.int(3), let pinProtocol = PinUvAuthProtocol(rawValue: number) else {
            throw CTAPFailure(.missingParameter)
        }
        let message = [UInt8(subcommand)] + (subParams.map { CBOREncoder.encode(.map($0)) } ?? [])
        let (token, tokenProtocol) = tokenOf(state)
        guard let token, tokenProtocol == pinProtocol, pinProtocol.verify(key: token, message: message, signature: param) else {
            throw CTAPFailure(.pinAuthInvalid)
        }
        switch subcommand {
        case 0x01, 0x02, 0x04:
            let rpIdHash = subcommand == 0x04 ? subParams?[1]?.bytesValue : nil
            if subcommand == 0x04, rpIdHash?.count != 32 { throw CTAPFailure(.missingParameter) }
            submit(.passkeys(channel: state.key, rpIdHash: rpIdHash), caller) { [self] result in
                guard case .success(.passkeys(let passkeys)) = result else {
                    if case .failure(let error) = result { return reply(Self.status(of: error)) }
                    return reply(.other)
                }
                switch subcommand {
                case 0x01:
                    reply(.ok, .map(CBORMap([
                        (.int(1), .int(passkeys.count)), (.int(2), .int(max(0, Passkey.maximumPerUid - passkeys.count))),
                    ])))
                case 0x02:
                    var seen: [[UInt8]] = []
                    let rps = passkeys.filter { passkey in
                        guard !seen.contains(passkey.rpIdHash) else { return false }
                        seen.append(passkey.rpIdHash)
                        return true
                    }
                    guard !rps.isEmpty else { return reply(.noCredentials) }
                    let items: [CBORValue] = rps.enumerated().map { index, passkey in
                        var item = CBORMap([
                            (.int(3), .map(CBORMap([(.text("id"), .text(passkey.rpId))]))), (.int(4), .bytes(passkey.rpIdHash)),
                        ])
                        if index == 0 { item.set(5, .int(rps.count)) }
                        return .map(item)
                    }
                    setNextManaged(state, Array(items.dropFirst()))
                    reply(.ok, items[0])
                default:
                    guard !passkeys.isEmpty else { return reply(.noCredentials) }
                    let items: [CBORValue] = passkeys.enumerated().map { index, passkey in
                        var user = CBORMap([(.text("id"), .bytes(passkey.userHandle))])
                        if let name = passkey.userName { user.set("name", .text(name)) }
                        if let name = passkey.displayName { user.set("displayName", .text(name)) }
                        let coseKey = (try? CBORDecoder.decode(passkey.algorithm.coseKey(publicKey: passkey.publicKey))) ?? .null
                        var item = CBORMap([
                            (.int(6), .map(user)),
                            (.int(7), .map(CBORMap([(.text("id"), .bytes(passkey.credentialId)), (.text("type"), .text("public-key"))]))),
                            (.int(8), coseKey),
                        ])
                        if index == 0 { item.set(9, .int(passkeys.count)) }
                        return .map(item)
                    }
                    setNextManaged(state, Array(items.dropFirst()))
                    reply(.ok, items[0])
                }
            }
        case 0x06:
            guard let id = subParams?[2]?.mapValue?["id"]?.bytesValue else { throw CTAPFailure(.missingParameter) }
            submit(.deletePasskey(channel: state.key, credentialId: id), caller) { result in
                switch result {
                case .success: reply(.ok)
                case .failure(let error): reply(Self.status(of: error))
                }
            }
        default:
            throw CTAPFailure(.invalidSubcommand)
        }
    }
}
