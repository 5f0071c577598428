import Glibc
import PinVaultCBOR
import PinVaultCrypto
import PinVaultTestKit

/// The security key over the daemon's CTAPHID socket, as a platform drives it: a sign-in
/// with a fresh PIN (getPinUvAuthTokenUsingPinWithPermissions, which runs Argon2id, then
/// GetAssertion) against one raw `crypto_pwhash`, alternating; and GetAssertion under a
/// token already made (no KDF: an HMAC checked, a P-256 signature), on one core.
enum PasskeyBenchmark {
    static let pin = "482915"
    static let rpId = "bench.example"

    static func run(daemon: DaemonInstance, kdf: ConfiguredKDF, cores: Int, parameters: BenchParameters, report: Report) throws {
        guard let daemonPid = daemon.pid else { throw BenchError("pinvaultd is not running") }
        let platform = try Platform(path: daemon.daemon.ctaphidSocketPath)
        try platform.setPin(pin)
        let token = try platform.token(pin)
        let clientDataHash = RandomBytes.make(count: 32)
        try platform.makeCredential(rpId: rpId, token: token, clientDataHash: clientDataHash)

        // One of each first, not counted: first-touch page faults on both sides.
        try platform.signIn(rpId: rpId, token: try platform.token(pin), clientDataHash: clientDataHash, presence: true)
        _ = try RawArgon2id.timeOne(kdf.parameters)
        var fresh: [Double] = [], raw: [Double] = []
        for _ in 0..<parameters.kdfPairs {
            fresh.append(try Monotonic.measure {
                try platform.signIn(rpId: rpId, token: try platform.token(pin), clientDataHash: clientDataHash, presence: true)
            }.seconds)
            raw.append(try RawArgon2id.timeOne(kdf.parameters))
        }
        let freshSummary = Summary(fresh), rawSummary = Summary(raw)
        let ratio = (freshSummary?.median ?? 0) / (rawSummary?.median ?? 1)
        report.goal("Passkey sign-in with a fresh PIN: getPinUvAuthToken + GetAssertion ÷ raw crypto_pwhash", ratio, atMost: 1.05)

        // Under one token, pinned with the daemon to one CPU.
        let reused = try platform.token(pin)
        let calls = parameters.quick ? 500 : 5_000
        try CPUPlacement.oneCore.apply(to: [daemonPid], cores: cores)
        defer { try? CPUPlacement.scheduler.apply(to: [daemonPid], cores: cores) }
        for _ in 0..<50 { try platform.signIn(rpId: rpId, token: reused, clientDataHash: clientDataHash, presence: false) }
        var rates: [Double] = []
        for _ in 0..<parameters.roundTripRounds {
            rates.append(Double(calls) / (try Monotonic.measure {
                for _ in 0..<calls { try platform.signIn(rpId: rpId, token: reused, clientDataHash: clientDataHash, presence: false) }
            }.seconds))
        }
        let rateSummary = Summary(rates)
        report.goal("Passkey GetAssertion with a token (one core): GetAssertion/s", rateSummary?.median ?? 0, atLeast: 5_000)

        var section = Report.Section("Passkeys (CTAP 2.1 over the CTAPHID socket)")
        section.add("A platform written here (PIN/UV auth protocol two, one CTAPHID channel on one connection to the")
        section.add("daemon's CTAPHID socket, 64-byte reports) holding one discoverable ES256 passkey of `\(rpId)`.")
        section.add("Fresh PIN: getPinUvAuthTokenUsingPinWithPermissions (the PIN's hash checked by Argon2id at the")
        section.add("configured cost, counted first) then GetAssertion with that token, alternating with one in-process")
        section.add("`crypto_pwhash` (\(kdf.description)); \(parameters.kdfPairs) pairs after one uncounted pair.")
        section.add("With a token: GetAssertion without presence (`up` false) under one token, \(parameters.roundTripRounds) rounds")
        section.add("of \(calls) after 50 uncounted, client and daemon pinned to CPU 0.")
        section.add()
        section.header("figure", "min / median / max")
        section.row("fresh PIN: token + GetAssertion", Format.summary(freshSummary, Format.milliseconds))
        section.row("raw crypto_pwhash", Format.summary(rawSummary, Format.milliseconds))
        section.row("**ratio of medians**", "**\(Format.ratio(ratio))** (goal ≤ 1.05)")
        section.row("GetAssertion with a token (one core)", Format.summary(rateSummary, Format.rate) + " (goal ≥ 5,000/s)")
        report.add(section)
    }

    /// The platform's side: its key agreement with the authenticator (protocol two), and
    /// CTAP requests as CTAPHID CBOR messages on one channel.
    final class Platform {
        private let device: CTAPHIDClient
        private let channel: UInt32
        private let key: KeyAgreementKey
        private let shared: SecretBytes
        private let protocolTwo = PinUvAuthProtocol.two

        init(path: String) throws {
            device = try CTAPHIDClient(path: path, timeoutSeconds: 120)
            channel = try device.initialize()
            key = try KeyAgreementKey()
            let agreement = try Self.map(try Self.request(device, channel, 0x06, CBORMap([(.int(1), .int(2)), (.int(2), .int(2))])))
            guard let cose = agreement[1]?.mapValue, let x = cose[-2]?.bytesValue, let y = cose[-3]?.bytesValue else {
                throw BenchError("getKeyAgreement: no key")
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

        /// One CTAP2 request; the reply's bytes after a CTAP2_OK status.
        private static func request(_ device: CTAPHIDClient, _ channel: UInt32, _ command: UInt8, _ parameters: CBORMap) throws -> [UInt8] {
            try device.send(command: 0x90, channel: channel, payload: [command] + CBOREncoder.encode(.map(parameters)))
            let answer = try device.receiveMessage()
            guard answer.command == 0x90, answer.payload.first == 0 else {
                throw BenchError("CTAP command 0x\(String(command, radix: 16)) answered \(answer)")
            }
            return Array(answer.payload.dropFirst())
        }

        private static func map(_ bytes: [UInt8]) throws -> CBORMap { try CBORDecoder.decodeMap(bytes) }

        private func request(_ command: UInt8, _ parameters: CBORMap) throws -> [UInt8] {
            try Self.request(device, channel, command, parameters)
        }

        func setPin(_ pin: String) throws {
            let padded = Array(pin.utf8) + [UInt8](repeating: 0, count: 64 - pin.utf8.count)
            let newPinEnc = try protocolTwo.encrypt(sharedSecret: shared, Self.secret(padded))
            _ = try request(0x06, CBORMap([
                (.int(1), .int(2)), (.int(2), .int(3)), (.int(3), coseKey),
                (.int(4), .bytes(try protocolTwo.authenticate(key: shared, message: newPinEnc))), (.int(5), .bytes(newPinEnc)),
            ]))
        }

        /// getPinUvAuthTokenUsingPinWithPermissions (mc and ga): the token.
        func token(_ pin: String) throws -> SecretBytes {
            let hash = Array(SHA256.hash(Array(pin.utf8)).prefix(16))
            let pinHashEnc = try protocolTwo.encrypt(sharedSecret: shared, Self.secret(hash))
            let reply = try Self.map(try request(0x06, CBORMap([
                (.int(1), .int(2)), (.int(2), .int(9)), (.int(3), coseKey), (.int(6), .bytes(pinHashEnc)), (.int(9), .int(0x03)),
            ])))
            guard let encrypted = reply[2]?.bytesValue else { throw BenchError("getPinUvAuthToken: no token") }
            return try protocolTwo.decrypt(sharedSecret: shared, encrypted)
        }

        func makeCredential(rpId: String, token: SecretBytes, clientDataHash: [UInt8]) throws {
            _ = try request(0x01, CBORMap([
                (.int(1), .bytes(clientDataHash)), (.int(2), .map(CBORMap([(.text("id"), .text(rpId))]))),
                (.int(3), .map(CBORMap([(.text("id"), .bytes([7])), (.text("name"), .text("bench"))]))),
                (.int(4), .array([.map(CBORMap([(.text("alg"), .int(-7)), (.text("type"), .text("public-key"))]))])),
                (.int(7), .map(CBORMap([(.text("rk"), .bool(true))]))),
                (.int(8), .bytes(try protocolTwo.authenticate(key: token, message: clientDataHash))), (.int(9), .int(2)),
            ]))
        }

        /// A discoverable GetAssertion under `token`; `presence` false asks none (`up` false).
        func signIn(rpId: String, token: SecretBytes, clientDataHash: [UInt8], presence: Bool) throws {
            var parameters: [(CBORValue, CBORValue)] = [(.int(1), .text(rpId)), (.int(2), .bytes(clientDataHash))]
            if !presence { parameters.append((.int(5), .map(CBORMap([(.text("up"), .bool(false))])))) }
            parameters += [(.int(6), .bytes(try protocolTwo.authenticate(key: token, message: clientDataHash))), (.int(7), .int(2))]
            _ = try request(0x02, CBORMap(parameters))
        }
    }
}
