import Dispatch
import Glibc
import PinVaultCBOR
import PinVaultCTAPHID
import PinVaultCrypto
import PinVaultEmbedded
import PinVaultSystem

/// `PINVAULT_FUZZ_TARGET=ctap`: CTAP2 commands through the security key's dispatch — the
/// daemon's own `EngineAuthenticator` over its engine and a real store (`InProcessVault`,
/// weak KDF) — as the CTAPHID door hands them over, on three channels of two uids. A
/// platform in the harness does what a fuzzer cannot guess (key agreement, PIN
/// encryption, the token's HMACs), so that the steps reach past the PIN: setPIN, tokens
/// with right and wrong PINs, changePIN, MakeCredential, GetAssertion, CredentialManagement
/// with valid proofs over fuzzed fields; raw messages and fuzzed maps go in beside them.
///
/// Checked after every step: one reply, within the size limit; an error is its status
/// byte alone; a success is one canonical CBOR map; a passkey made is attested by its own
/// key over its relying party's hash; an assertion is the asking uid's passkey of that
/// relying party, and its signature verifies over authenticatorData ‖ clientDataHash. Each
/// input starts with a Reset of both uids' security keys and ends with its channels
/// closed and GetInfo answered.
///
/// Each step is an opcode byte — its low 4 bits the step, its high bits the channel — and
/// the operands it reads (zeros past the input's end).
enum CTAPCommandCheck {
    static let uids: [UInt32] = [1000, 1000, 1001]
    static let pins = ["482915", "593861", "1234", "70719353114"]
    static let rpIds = ["example.com", "login.example.com", "evil.example", String(repeating: "r", count: 255)]
    /// Algorithms a MakeCredential may offer: ES256, EdDSA, RS256, and nonsense.
    static let algorithms = [-7, -8, -257, 0]

    /// The platform's side of one channel.
    final class Platform {
        let pinProtocol: PinUvAuthProtocol
        let key: KeyAgreementKey
        let shared: SecretBytes
        var token: SecretBytes?

        init(pinProtocol: PinUvAuthProtocol, key: KeyAgreementKey, shared: SecretBytes) {
            self.pinProtocol = pinProtocol
            self.key = key
            self.shared = shared
        }

        var coseKey: CBORValue {
            .map(CBORMap([
                (.int(1), .int(2)), (.int(3), .int(-25)), (.int(-1), .int(1)),
                (.int(-2), .bytes(Array(key.publicKey[1..<33]))), (.int(-3), .bytes(Array(key.publicKey[33..<65]))),
            ]))
        }
    }

    /// A passkey the authenticator made, as its attestation showed it.
    struct Made {
        let uid: UInt32
        let rpIdHash: [UInt8]
        let algorithm: KeyAlgorithm
        let publicKey: [UInt8]
    }

    /// What one input's run knows.
    final class Run {
        let authenticator: any CTAPAuthenticator
        var channels: [CTAPChannel]
        var platforms: [Platform?]
        var nextConnection: UInt64 = 1
        var made: [[UInt8]: Made] = [:]
        /// The clientDataHash of each channel's last GetAssertion that succeeded, by
        /// connection: what GetNextAssertion's assertions sign.
        var lastClientDataHash: [UInt64: [UInt8]] = [:]

        init(_ authenticator: any CTAPAuthenticator) {
            self.authenticator = authenticator
            channels = []
            platforms = [nil, nil, nil]
            for uid in uids { channels.append(newChannel(uid)) }
        }

        func newChannel(_ uid: UInt32) -> CTAPChannel {
            defer { nextConnection += 1 }
            return CTAPChannel(
                connection: nextConnection, id: UInt32(truncatingIfNeeded: nextConnection), uid: uid, pid: 4242,
                poweredUpAt: MonotonicClock.milliseconds())
        }
    }

    static func run(_ input: UnsafeRawBufferPointer) {
        let vault = FuzzHarness.vaultOrTrap()
        let run = Run(vault.authenticator)
        var script = FuzzScript(input)
        // A fresh security key for each uid: its channel powered up just now, so Reset is allowed.
        for index in [0, 2] {
            let status = send(run, index, [0x07]).first
            check(status == 0, "Reset of a device just powered up answered \(status.map(String.init) ?? "nothing")")
        }
        while let opcode = script.byte() {
            let index = Int(opcode >> 4) % run.channels.count
            step(opcode & 0x0F, on: index, run, &script, vault: vault)
        }
        for channel in run.channels { run.authenticator.channelClosed(channel) }
        let fresh = run.newChannel(1000)
        run.channels = [fresh]
        check(send(run, 0, [0x04]).first == 0, "GetInfo unanswered at the end")
        run.authenticator.channelClosed(fresh)
    }

    private static func step(_ operation: UInt8, on index: Int, _ run: Run, _ script: inout FuzzScript, vault: InProcessVault) {
        switch operation {
        case 0:  // a raw message: its command byte and up to 255 bytes
            let command = script.byte() ?? 0
            let length = Int(script.byte() ?? 0)
            _ = send(run, index, [command] + script.bytes(length))
        case 1:  // getKeyAgreement, and a new platform on the channel
            keyAgreement(run, index, pinProtocol: (script.byte() ?? 0) & 1 == 0 ? .two : .one)
        case 2: setPin(run, index, pins[Int(script.byte() ?? 0) % pins.count])
        case 3: token(run, index, &script)
        case 4: changePin(run, index, &script)
        case 5: _ = send(run, index, [0x06] + CBOREncoder.encode(.map(CBORMap([(.int(1), .int(2)), (.int(2), .int(1))]))))
        case 6: makeCredential(run, index, &script)
        case 7: getAssertion(run, index, &script)
        case 8:  // GetNextAssertion
            let reply = send(run, index, [0x08])
            if reply.first == 0 { checkAssertion(run, index, reply, rpIdHash: nil, clientDataHash: nil) }
        case 9: credentialManagement(run, index, &script)
        case 10: _ = send(run, index, [(script.byte() ?? 0) & 1 == 0 ? 0x04 : 0x0B])
        case 11: _ = send(run, index, [0x07])
        case 12:  // the channel closes; a new one of the same uid takes its place
            run.authenticator.channelClosed(run.channels[index])
            run.channels[index] = run.newChannel(run.channels[index].uid)
            run.platforms[index] = nil
        case 13: vault.advanceClock(seconds: Int64(script.byte() ?? 0))
        default:  // a fuzzed map as MakeCredential's or GetAssertion's, with a valid proof of its clientDataHash
            let command: UInt8 = (script.byte() ?? 0) & 1 == 0 ? 0x01 : 0x02
            let length = Int(script.byte() ?? 0) << 2
            guard var map = try? CBORDecoder.decodeMap(script.bytes(length)) else { return }
            let (hashKey, paramKey, protocolKey) = command == 0x01 ? (1, 8, 9) : (2, 6, 7)
            var proven = false
            if let platform = run.platforms[index], let token = platform.token, let hash = map[hashKey]?.bytesValue,
               let param = try? platform.pinProtocol.authenticate(key: token, message: hash) {
                map.set(paramKey, .bytes(param))
                map.set(protocolKey, .int(platform.pinProtocol.rawValue))
                proven = true
            }
            let reply = send(run, index, [command] + CBOREncoder.encode(.map(map)))
            check(reply.first != 0 || proven, "command 0x\(String(command, radix: 16)) without the token's proof succeeded")
            if reply.first == 0, command == 0x02, let hash = map[2]?.bytesValue {
                checkAssertion(run, index, reply, rpIdHash: map[1]?.textValue.map { SHA256.hash(Array($0.utf8)) }, clientDataHash: hash)
            }
        }
    }

    // MARK: ClientPIN

    private static func keyAgreement(_ run: Run, _ index: Int, pinProtocol: PinUvAuthProtocol) {
        let reply = send(run, index, [0x06] + CBOREncoder.encode(.map(CBORMap([(.int(1), .int(pinProtocol.rawValue)), (.int(2), .int(2))]))))
        guard reply.first == 0 else { return check(false, "getKeyAgreement answered \(reply)") }
        guard let body = try? CBORDecoder.decodeMap(Array(reply.dropFirst())), let cose = body[1]?.mapValue,
              let x = cose[-2]?.bytesValue, let y = cose[-3]?.bytesValue, x.count == 32, y.count == 32,
              let key = try? KeyAgreementKey(), let shared = try? pinProtocol.sharedSecret(key, platformKey: [4] + x + y)
        else { return check(false, "getKeyAgreement gave no usable key: \(reply)") }
        run.platforms[index] = Platform(pinProtocol: pinProtocol, key: key, shared: shared)
    }

    private static func platform(_ run: Run, _ index: Int) -> Platform? {
        if run.platforms[index] == nil { keyAgreement(run, index, pinProtocol: .two) }
        return run.platforms[index]
    }

    private static func secret(_ bytes: [UInt8]) -> SecretBytes? {
        try? bytes.withUnsafeBytes { try SecretBytes(copying: $0) }
    }

    private static func padded(_ pin: String) -> [UInt8] {
        Array(pin.utf8) + [UInt8](repeating: 0, count: 64 - pin.utf8.count)
    }

    private static func setPin(_ run: Run, _ index: Int, _ pin: String) {
        guard let p = platform(run, index), let plain = secret(padded(pin)),
              let newPinEnc = try? p.pinProtocol.encrypt(sharedSecret: p.shared, plain),
              let param = try? p.pinProtocol.authenticate(key: p.shared, message: newPinEnc)
        else { return }
        _ = send(run, index, [0x06] + CBOREncoder.encode(.map(CBORMap([
            (.int(1), .int(p.pinProtocol.rawValue)), (.int(2), .int(3)), (.int(3), p.coseKey),
            (.int(4), .bytes(param)), (.int(5), .bytes(newPinEnc)),
        ]))))
    }

    /// pinHashEnc of `pin` for `p`.
    private static func pinHashEnc(_ pin: String, _ p: Platform) -> [UInt8]? {
        guard let plain = secret(Array(pin.utf8)), let hash = try? SecurityKeyPin.hash(plain),
              let hashBytes = secret(hash.withUnsafeBytes { Array($0) })
        else { return nil }
        return try? p.pinProtocol.encrypt(sharedSecret: p.shared, hashBytes)
    }

    /// getPinToken or getPinUvAuthTokenUsingPinWithPermissions: the PIN one of `pins`, the
    /// permissions and relying party from the input.
    private static func token(_ run: Run, _ index: Int, _ script: inout FuzzScript) {
        let choice = script.byte() ?? 0
        guard let p = platform(run, index), let encrypted = pinHashEnc(pins[Int(choice & 3)], p) else { return }
        let withPermissions = choice & 4 == 0
        var map = CBORMap([
            (.int(1), .int(p.pinProtocol.rawValue)), (.int(2), .int(withPermissions ? 9 : 5)), (.int(3), p.coseKey),
            (.int(6), .bytes(encrypted)),
        ])
        if withPermissions {
            map.set(9, .int(Int(script.byte() ?? 0) & 0x0F))
            let rp = Int(choice >> 3) % (rpIds.count + 1)
            if rp < rpIds.count { map.set(10, .text(rpIds[rp])) }
        }
        let reply = send(run, index, [0x06] + CBOREncoder.encode(.map(map)))
        p.token = nil
        guard reply.first == 0 else { return }
        guard let body = try? CBORDecoder.decodeMap(Array(reply.dropFirst())), let tokenEnc = body[2]?.bytesValue,
              let token = try? p.pinProtocol.decrypt(sharedSecret: p.shared, tokenEnc), token.count == 32
        else { return check(false, "a token's answer without a token: \(reply)") }
        p.token = token
    }

    private static func changePin(_ run: Run, _ index: Int, _ script: inout FuzzScript) {
        let choice = script.byte() ?? 0
        guard let p = platform(run, index), let hashEnc = pinHashEnc(pins[Int(choice & 3)], p),
              let plain = secret(padded(pins[Int(choice >> 2 & 3)])),
              let newPinEnc = try? p.pinProtocol.encrypt(sharedSecret: p.shared, plain),
              let param = try? p.pinProtocol.authenticate(key: p.shared, message: newPinEnc + hashEnc)
        else { return }
        _ = send(run, index, [0x06] + CBOREncoder.encode(.map(CBORMap([
            (.int(1), .int(p.pinProtocol.rawValue)), (.int(2), .int(4)), (.int(3), p.coseKey), (.int(4), .bytes(param)),
            (.int(5), .bytes(newPinEnc)), (.int(6), .bytes(hashEnc)),
        ]))))
    }

    // MARK: Passkeys

    /// The token's proof of `message` (valid, a wrong one, or none), as keys `paramKey` and
    /// `protocolKey`. Whether a valid one was given: without it nothing may succeed.
    private static func prove(
        _ message: [UInt8], _ how: UInt8, _ run: Run, _ index: Int, into map: inout CBORMap, paramKey: Int, protocolKey: Int
    ) -> Bool {
        guard let p = run.platforms[index] else { return false }
        var valid = false
        switch how % 3 {
        case 0:
            guard let token = p.token, let param = try? p.pinProtocol.authenticate(key: token, message: message) else { return false }
            map.set(paramKey, .bytes(param))
            valid = true
        case 1: map.set(paramKey, .bytes([UInt8](repeating: how, count: p.pinProtocol == .one ? 16 : 32)))
        default: return false
        }
        map.set(protocolKey, .int(p.pinProtocol.rawValue))
        return valid
    }

    private static func makeCredential(_ run: Run, _ index: Int, _ script: inout FuzzScript) {
        let choice = script.byte() ?? 0
        let rpId = rpIds[Int(choice & 3)]
        let clientDataHash = script.bytes(32)
        let user = script.bytes(Int(script.byte() ?? 0) % 70)
        let offered = script.bytes(2).map { CBORValue.map(CBORMap([
            (.text("alg"), .int(algorithms[Int($0) % algorithms.count])), (.text("type"), .text($0 & 0x80 == 0 ? "public-key" : "other")),
        ])) }
        var map = CBORMap([
            (.int(1), .bytes(clientDataHash)), (.int(2), .map(CBORMap([(.text("id"), .text(rpId))]))),
            (.int(3), .map(CBORMap([(.text("id"), .bytes(user)), (.text("name"), .text("fuzz"))]))), (.int(4), .array(offered)),
            (.int(7), .map(CBORMap([(.text("rk"), .bool(choice & 4 == 0))]))),
        ])
        if choice & 8 != 0 {
            map.set(5, .array(run.made.keys.prefix(3).map { .map(CBORMap([(.text("id"), .bytes($0)), (.text("type"), .text("public-key"))])) }))
        }
        let proven = prove(clientDataHash, choice >> 4, run, index, into: &map, paramKey: 8, protocolKey: 9)
        let reply = send(run, index, [0x01] + CBOREncoder.encode(.map(map)))
        guard reply.first == 0 else { return }
        check(proven, "a MakeCredential without the token's proof succeeded")
        // packed self attestation over authenticatorData ‖ clientDataHash, by the passkey itself.
        guard let body = try? CBORDecoder.decodeMap(Array(reply.dropFirst())), body[1]?.textValue == "packed",
              let authData = body[2]?.bytesValue, authData.count > 55,
              let statement = body[3]?.mapValue, let signature = statement["sig"]?.bytesValue,
              let algorithm = KeyAlgorithm.passkeyAlgorithm(statement["alg"]?.intValue)
        else { return check(false, "MakeCredential's answer is no packed attestation: \(reply)") }
        check(Array(authData[0..<32]) == SHA256.hash(Array(rpId.utf8)), "a passkey made for another relying party")
        check(authData[32] & 0x45 == 0x45, "a passkey made without UP, UV and attested data: flags \(authData[32])")
        let idLength = Int(authData[53]) << 8 | Int(authData[54])
        guard authData.count > 55 + idLength, let cose = try? CBORDecoder.decodeMap(Array(authData[(55 + idLength)...])),
              let x = cose[-2]?.bytesValue
        else { return check(false, "MakeCredential's authenticator data holds no credential") }
        let publicKey = algorithm == .p256 ? [4] + x + (cose[-3]?.bytesValue ?? []) : x
        check((authData + clientDataHash).withUnsafeBytes { algorithm.verify(signature: signature, message: $0, publicKey: publicKey) },
              "a self attestation that its passkey does not verify")
        run.made[Array(authData[55..<(55 + idLength)])] = Made(
            uid: run.channels[index].uid, rpIdHash: Array(authData[0..<32]), algorithm: algorithm, publicKey: publicKey)
    }

    private static func getAssertion(_ run: Run, _ index: Int, _ script: inout FuzzScript) {
        let choice = script.byte() ?? 0
        let rpId = rpIds[Int(choice & 3)]
        let clientDataHash = script.bytes(32)
        var map = CBORMap([(.int(1), .text(rpId)), (.int(2), .bytes(clientDataHash))])
        switch choice >> 2 & 3 {
        case 1: map.set(3, .array(run.made.keys.map { .map(CBORMap([(.text("id"), .bytes($0)), (.text("type"), .text("public-key"))])) }))
        case 2: map.set(3, .array([.map(CBORMap([(.text("id"), .bytes(script.bytes(32))), (.text("type"), .text("public-key"))]))]))
        case 3: map.set(3, .array([]))
        default: break
        }
        if choice & 0x10 != 0 { map.set(5, .map(CBORMap([(.text("up"), .bool(choice & 0x20 != 0))]))) }
        let proven = prove(clientDataHash, choice >> 6, run, index, into: &map, paramKey: 6, protocolKey: 7)
        let reply = send(run, index, [0x02] + CBOREncoder.encode(.map(map)))
        if reply.first == 0 { check(proven, "a GetAssertion without the token's proof succeeded") }
        if reply.first == 0 { checkAssertion(run, index, reply, rpIdHash: SHA256.hash(Array(rpId.utf8)), clientDataHash: clientDataHash) }
    }

    /// An assertion is one of the uid's passkeys, of the relying party asked, and its
    /// signature verifies over authenticatorData ‖ clientDataHash.
    private static func checkAssertion(_ run: Run, _ index: Int, _ reply: [UInt8], rpIdHash: [UInt8]?, clientDataHash: [UInt8]?) {
        let connection = run.channels[index].connection
        guard let hash = clientDataHash ?? run.lastClientDataHash[connection] else {
            return check(false, "GetNextAssertion answered with no GetAssertion before it")
        }
        run.lastClientDataHash[connection] = hash
        guard let body = try? CBORDecoder.decodeMap(Array(reply.dropFirst())), let id = body[1]?.mapValue?["id"]?.bytesValue,
              let authData = body[2]?.bytesValue, authData.count >= 37, let signature = body[3]?.bytesValue
        else { return check(false, "an assertion without its credential, data or signature: \(reply)") }
        guard let passkey = run.made[id] else { return check(false, "an assertion by a passkey no MakeCredential of this input made") }
        check(passkey.uid == run.channels[index].uid, "uid \(run.channels[index].uid) signed with uid \(passkey.uid)'s passkey")
        check(Array(authData[0..<32]) == passkey.rpIdHash, "an assertion whose data names another relying party than its passkey's")
        if let rpIdHash { check(passkey.rpIdHash == rpIdHash, "a passkey of another relying party answered") }
        check((authData + hash).withUnsafeBytes { passkey.algorithm.verify(signature: signature, message: $0, publicKey: passkey.publicKey) },
              "an assertion's signature does not verify")
    }

    private static func credentialManagement(_ run: Run, _ index: Int, _ script: inout FuzzScript) {
        let choice = script.byte() ?? 0
        let subcommand = [1, 2, 3, 4, 5, 6, 7][Int(choice & 7) % 7]
        var subParams: CBORMap?
        switch subcommand {
        case 4: subParams = CBORMap([(.int(1), .bytes(SHA256.hash(Array(rpIds[Int(choice >> 3 & 3)].utf8))))])
        case 6:
            let known = Array(run.made.keys)
            let id = known.isEmpty || choice & 0x20 != 0 ? script.bytes(32) : known[Int(choice >> 3 & 3) % known.count]
            subParams = CBORMap([(.int(2), .map(CBORMap([(.text("id"), .bytes(id)), (.text("type"), .text("public-key"))])))])
        default: break
        }
        var map = CBORMap([(.int(1), .int(subcommand))])
        if let subParams { map.set(2, .map(subParams)) }
        let message = [UInt8(subcommand)] + (subParams.map { CBOREncoder.encode(.map($0)) } ?? [])
        let proven = prove(message, choice >> 6, run, index, into: &map, paramKey: 4, protocolKey: 3)
        let reply = send(run, index, [0x0A] + CBOREncoder.encode(.map(map)))
        // The getNext subcommands (3, 5) continue a proven one and take no proof.
        check(reply.first != 0 || proven || subcommand == 3 || subcommand == 5, "CredentialManagement \(subcommand) without the token's proof succeeded")
    }

    // MARK: The seam

    private final class Answer: @unchecked Sendable {
        var replies: [[UInt8]] = []
        let done = DispatchSemaphore(value: 0)
    }

    /// One message through the seam, as the door hands it over; the reply, checked.
    private static func send(_ run: Run, _ index: Int, _ message: [UInt8]) -> [UInt8] {
        guard let request = secret(message) else { FuzzHarness.trap("ctap: no secret memory for a request") }
        let answer = Answer()
        run.authenticator.cbor(request, on: run.channels[index]) { buffer in
            answer.replies.append(buffer.copyBytes())
            answer.done.signal()
        }
        check(answer.done.wait(timeout: .now() + 60) == .success, "no reply to \(message.prefix(16)) within a minute")
        check(answer.replies.count == 1, "\(answer.replies.count) replies to one request")
        let reply = answer.replies[0]
        if FuzzHarness.tracing {
            print("ctap uid \(run.channels[index].uid) channel \(index): 0x\(String(message[0], radix: 16)) → 0x\(String(reply.first ?? 0xff, radix: 16)), \(reply.count) bytes")
        }
        check(!reply.isEmpty && reply.count <= CTAPHID.maximumMessageSize, "a reply of \(reply.count) bytes")
        if reply[0] != 0 {
            check(reply.count == 1, "an error (0x\(String(reply[0], radix: 16))) with a body")
        } else if reply.count > 1 {
            let body = Array(reply.dropFirst())
            guard let map = try? CBORDecoder.decodeMap(body) else { FuzzHarness.trap("ctap: a success whose body is not a CBOR map") }
            check(CBOREncoder.encode(.map(map)) == body, "a success whose body is not canonical CBOR")
        }
        return reply
    }

    private static func check(_ condition: Bool, _ message: @autoclosure () -> String) {
        if !condition { FuzzHarness.trap("ctap: \(message())") }
    }
}

extension KeyAlgorithm {
    /// The passkey algorithm of a COSE identifier.
    static func passkeyAlgorithm(_ cose: Int?) -> KeyAlgorithm? {
        [KeyAlgorithm.p256, .ed25519].first { $0.coseAlgorithm == cose }
    }
}
