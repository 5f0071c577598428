import PinVaultCBOR
import PinVaultCrypto
import PinVaultEngine

/// MakeCredential, GetAssertion, GetNextAssertion (CTAP 2.1 §6.1–6.3).
extension EngineAuthenticator {
    /// The channel's token proves the request: pinUvAuthParam = authenticate(token,
    /// clientDataHash), under the token's own protocol. Without one: PIN_REQUIRED, as this
    /// authenticator has no other way to see the user.
    private func checkToken(_ p: CTAPParameters, _ state: ChannelState, clientDataHash: [UInt8], paramKey: Int, protocolKey: Int) throws(CTAPFailure) {
        guard let param = try p.bytes(paramKey, required: false) else { throw CTAPFailure(.pinRequired) }
        guard let number = try p.int(protocolKey), let pinProtocol = PinUvAuthProtocol(rawValue: number) else {
            throw CTAPFailure(.missingParameter)
        }
        let (token, tokenProtocol) = tokenOf(state)
        guard let token, tokenProtocol == pinProtocol,
              pinProtocol.verify(key: token, message: clientDataHash, signature: param)
        else { throw CTAPFailure(.pinAuthInvalid) }
    }

    func makeCredential(_ p: CTAPParameters, _ caller: Caller, _ state: ChannelState, _ reply: Reply) throws(CTAPFailure) {
        guard let clientDataHash = try p.bytes(1), let rp = try p.map(2), let user = try p.map(3),
              let params = try p.array(4)
        else { throw CTAPFailure(.missingParameter) }
        guard let rpId = rp["id"]?.textValue, let userHandle = user["id"]?.bytesValue else { throw CTAPFailure(.missingParameter) }
        guard clientDataHash.count == 32, (1...64).contains(userHandle.count), (1...255).contains(rpId.utf8.count) else {
            throw CTAPFailure(.invalidLength)
        }
        let offered = params.compactMap { $0.mapValue }.filter { $0["type"]?.textValue == "public-key" }.compactMap { $0["alg"]?.intValue }
        guard let algorithm = offered.lazy.compactMap({ alg in KeyAlgorithm.passkeyAlgorithms.first { $0.coseAlgorithm == alg } }).first else {
            throw CTAPFailure(.unsupportedAlgorithm)
        }
        try checkToken(p, state, clientDataHash: clientDataHash, paramKey: 8, protocolKey: 9)
        let exclude = try p.credentialIds(5) ?? []
        let userName = user["name"]?.textValue, displayName = user["displayName"]?.textValue
        let channel = state.key
        submit(.passkeys(channel: nil, rpIdHash: SHA256.hash(Array(rpId.utf8))), caller) { [self] listed in
            if case .success(.passkeys(let existing)) = listed, existing.contains(where: { exclude.contains($0.credentialId) }) {
                return reply(.credentialExcluded)
            }
            submit(.makePasskey(
                channel: channel, rpId: rpId, userHandle: userHandle, userName: userName, displayName: displayName,
                algorithm: algorithm, clientDataHash: clientDataHash), caller
            ) { result in
                switch result {
                case .success(.passkeyMade(let made)):
                    let statement = CBORMap([(.text("alg"), .int(made.algorithm.coseAlgorithm)), (.text("sig"), .bytes(made.signature))])
                    reply(.ok, .map(CBORMap([
                        (.int(1), .text("packed")), (.int(2), .bytes(made.authenticatorData)), (.int(3), .map(statement)),
                    ])))
                case .failure(let error): reply(Self.status(of: error))
                case .success: reply(.other)
                }
            }
        }
    }

    func getAssertion(_ p: CTAPParameters, _ caller: Caller, _ state: ChannelState, _ reply: Reply) throws(CTAPFailure) {
        guard let rpId = try p.text(1), let clientDataHash = try p.bytes(2) else { throw CTAPFailure(.missingParameter) }
        guard clientDataHash.count == 32, (1...255).contains(rpId.utf8.count) else { throw CTAPFailure(.invalidLength) }
        let allowList = try p.credentialIds(3)
        let presence = try p.option("up", in: 5) ?? true
        try checkToken(p, state, clientDataHash: clientDataHash, paramKey: 6, protocolKey: 7)
        submit(.passkeyAssertions(
            channel: state.key, rpId: rpId, allowList: allowList?.isEmpty == true ? nil : allowList,
            clientDataHash: clientDataHash, presence: presence), caller
        ) { [self] result in
            switch result {
            case .success(.passkeyAssertions(let assertions)) where !assertions.isEmpty:
                let discoverable = allowList == nil || allowList?.isEmpty == true
                setNextAssertions(state, discoverable ? Array(assertions.dropFirst()) : [])
                reply(.ok, Self.response(assertions[0], count: discoverable && assertions.count > 1 ? assertions.count : nil))
            case .failure(let error): reply(Self.status(of: error))
            case .success: reply(.noCredentials)
            }
        }
    }

    func getNextAssertion(_ state: ChannelState, _ reply: Reply) {
        guard let next = popNextAssertion(state) else { return reply(.notAllowed) }
        reply(.ok, Self.response(next, count: nil))
    }

    static func response(_ assertion: Passkey.Assertion, count: Int?) -> CBORValue {
        var user = CBORMap([(.text("id"), .bytes(assertion.userHandle))])
        if let name = assertion.userName { user.set("name", .text(name)) }
        if let name = assertion.displayName { user.set("displayName", .text(name)) }
        var response = CBORMap([
            (.int(1), .map(CBORMap([(.text("id"), .bytes(assertion.credentialId)), (.text("type"), .text("public-key"))]))),
            (.int(2), .bytes(assertion.authenticatorData)), (.int(3), .bytes(assertion.signature)), (.int(4), .map(user)),
        ])
        if let count { response.set(5, .int(count)) }
        return .map(response)
    }
}
