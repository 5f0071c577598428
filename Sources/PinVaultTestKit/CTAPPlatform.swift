import PinVaultCBOR
import PinVaultCrypto

/// A platform (what a browser's CTAP stack does) written here, over the daemon's CTAPHID
/// socket: one channel on one connection, its key agreement with the authenticator (PIN/UV
/// auth protocol two), and CTAP2 requests as CTAPHID CBOR messages — for the benchmark's
/// passkey rows and the crash sweep's ClientPIN requests.
public final class CTAPPlatform {
    /// CTAP statuses the callers name.
    public static let ok: UInt8 = 0x00
    public static let pinInvalid: UInt8 = 0x31
    public static let pinBlocked: UInt8 = 0x32
    public static let other: UInt8 = 0x7F

    private let device: CTAPHIDClient
    private let channel: UInt32
    private let key: KeyAgreementKey
    private let shared: SecretBytes
    private let protocolTwo = PinUvAuthProtocol.two

    /// Connects, INITs a channel and agrees on a key with the authenticator (getKeyAgreement).
    public init(path: String, timeoutSeconds: Int = 120) throws {
        device = try CTAPHIDClient(path: path, timeoutSeconds: timeoutSeconds)
        channel = try device.initialize()
        key = try KeyAgreementKey()
        let agreement = try Self.map(try Self.ok(Self.exchange(device, channel, 0x06, CBORMap([(.int(1), .int(2)), (.int(2), .int(2))])), 0x06))
        guard let cose = agreement[1]?.mapValue, let x = cose[-2]?.bytesValue, let y = cose[-3]?.bytesValue else {
            throw TestKitError("getKeyAgreement: no key")
        }
        shared = try protocolTwo.sharedSecret(key, platformKey: [4] + x + y)
    }

    private var coseKey: CBORValue {
        .map(CBORMap([
            (.int(1), .int(2)), (.int(3), .int(-25)), (.int(-1), .int(1)),
            (.int(-2), .bytes(Array(key.publicKey[1..<33]))), (.int(-3), .bytes(Array(key.publicKey[33..<65]))),
        ]))
    }

    private static func secret(_ bytes: [UInt8]) throws -> SecretBytes {
        try bytes.withUnsafeBytes { try SecretBytes(copying: $0) }
    }

    /// One CTAP2 request: the status byte and the bytes after it.
    private static func exchange(_ device: CTAPHIDClient, _ channel: UInt32, _ command: UInt8, _ parameters: CBORMap) throws -> (UInt8, [UInt8]) {
        try device.send(command: 0x90, channel: channel, payload: [command] + CBOREncoder.encode(.map(parameters)))
        let answer = try device.receiveMessage()
        guard answer.command == 0x90, let status = answer.payload.first else {
            throw TestKitError("CTAP command 0x\(String(command, radix: 16)) answered \(answer)")
        }
        return (status, Array(answer.payload.dropFirst()))
    }

    private static func ok(_ answer: (UInt8, [UInt8]), _ command: UInt8) throws -> [UInt8] {
        guard answer.0 == 0 else { throw TestKitError("CTAP command 0x\(String(command, radix: 16)) answered status 0x\(String(answer.0, radix: 16))") }
        return answer.1
    }

    private static func map(_ bytes: [UInt8]) throws -> CBORMap { try CBORDecoder.decodeMap(bytes) }

    /// One CTAP2 request on this platform's channel: the status and the reply's CBOR bytes.
    public func exchange(_ command: UInt8, _ parameters: CBORMap) throws -> (status: UInt8, body: [UInt8]) {
        try Self.exchange(device, channel, command, parameters)
    }

    private func request(_ command: UInt8, _ parameters: CBORMap) throws -> [UInt8] {
        try Self.ok(exchange(command, parameters), command)
    }

    private func padded(_ pin: String) throws -> SecretBytes {
        try Self.secret(Array(pin.utf8) + [UInt8](repeating: 0, count: 64 - pin.utf8.count))
    }

    private func pinHashEnc(_ pin: String) throws -> [UInt8] {
        try protocolTwo.encrypt(sharedSecret: shared, Self.secret(Array(SHA256.hash(Array(pin.utf8)).prefix(16))))
    }

    public func setPin(_ pin: String) throws {
        let newPinEnc = try protocolTwo.encrypt(sharedSecret: shared, padded(pin))
        _ = try request(0x06, CBORMap([
            (.int(1), .int(2)), (.int(2), .int(3)), (.int(3), coseKey),
            (.int(4), .bytes(try protocolTwo.authenticate(key: shared, message: newPinEnc))), (.int(5), .bytes(newPinEnc)),
        ]))
    }

    /// getPinUvAuthTokenUsingPinWithPermissions (`permissions`), or with `legacy` getPinToken:
    /// the status, and the token when it is 0.
    public func tokenRequest(_ pin: String, permissions: Int = 0x03, legacy: Bool = false) throws -> (status: UInt8, token: SecretBytes?) {
        var parameters = CBORMap([
            (.int(1), .int(2)), (.int(2), .int(legacy ? 5 : 9)), (.int(3), coseKey), (.int(6), .bytes(try pinHashEnc(pin))),
        ])
        if !legacy { parameters.set(9, .int(permissions)) }
        let (status, body) = try exchange(0x06, parameters)
        guard status == 0 else { return (status, nil) }
        guard let encrypted = try Self.map(body)[2]?.bytesValue else { throw TestKitError("a token's answer without a token") }
        return (status, try protocolTwo.decrypt(sharedSecret: shared, encrypted))
    }

    /// getPinUvAuthTokenUsingPinWithPermissions (mc and ga): the token.
    public func token(_ pin: String) throws -> SecretBytes {
        let (status, token) = try tokenRequest(pin)
        guard let token else { throw TestKitError("getPinUvAuthToken: status 0x\(String(status, radix: 16))") }
        return token
    }

    /// changePIN from `current` to `new`: the status.
    public func changePin(from current: String, to new: String) throws -> UInt8 {
        let pinHashEnc = try pinHashEnc(current)
        let newPinEnc = try protocolTwo.encrypt(sharedSecret: shared, padded(new))
        return try exchange(0x06, CBORMap([
            (.int(1), .int(2)), (.int(2), .int(4)), (.int(3), coseKey),
            (.int(4), .bytes(try protocolTwo.authenticate(key: shared, message: newPinEnc + pinHashEnc))),
            (.int(5), .bytes(newPinEnc)), (.int(6), .bytes(pinHashEnc)),
        ])).status
    }

    /// getPINRetries: the attempts left.
    public func retries() throws -> Int {
        guard let count = try Self.map(try request(0x06, CBORMap([(.int(1), .int(2)), (.int(2), .int(1))])))[3]?.intValue else {
            throw TestKitError("getPINRetries: no count")
        }
        return count
    }

    public func makeCredential(rpId: String, token: SecretBytes, clientDataHash: [UInt8]) throws {
        _ = try request(0x01, CBORMap([
            (.int(1), .bytes(clientDataHash)), (.int(2), .map(CBORMap([(.text("id"), .text(rpId))]))),
            (.int(3), .map(CBORMap([(.text("id"), .bytes([7])), (.text("name"), .text("bench"))]))),
            (.int(4), .array([.map(CBORMap([(.text("alg"), .int(-7)), (.text("type"), .text("public-key"))]))])),
            (.int(7), .map(CBORMap([(.text("rk"), .bool(true))]))),
            (.int(8), .bytes(try protocolTwo.authenticate(key: token, message: clientDataHash))), (.int(9), .int(2)),
        ]))
    }

    /// A discoverable GetAssertion under `token`; `presence` false asks none (`up` false).
    public func signIn(rpId: String, token: SecretBytes, clientDataHash: [UInt8], presence: Bool) throws {
        var parameters: [(CBORValue, CBORValue)] = [(.int(1), .text(rpId)), (.int(2), .bytes(clientDataHash))]
        if !presence { parameters.append((.int(5), .map(CBORMap([(.text("up"), .bool(false))])))) }
        parameters += [(.int(6), .bytes(try protocolTwo.authenticate(key: token, message: clientDataHash))), (.int(7), .int(2))]
        _ = try request(0x02, CBORMap(parameters))
    }
}
