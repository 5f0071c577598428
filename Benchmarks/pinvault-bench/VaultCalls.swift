import PinVaultCrypto
import PinVaultProtocol
import PinVaultTestKit

/// The `io.pinvault.Vault` calls the benchmark makes, as prebuilt request bytes.
///
/// The benchmark's PIN is a fixed, public test value; it travels in request arrays the
/// harness owns, which a real client would zero (PinVaultClient does).
enum VaultCalls {
    static let interface = "io.pinvault.Vault"

    /// A PIN the shipped policy and deny list accept (checked with CheckPin at start).
    static let pin = "739164"

    static let getPolicy = request("GetPolicy")

    static func checkPin() -> [UInt8] {
        request("CheckPin") { $0.field("pin", pin) }
    }

    /// Register, for `purpose` (the daemon's default, authenticate, when nil).
    static func register(user: String, label: String? = nil, purpose: String? = nil, algorithm: String? = nil) -> [UInt8] {
        request("Register") { parameters in
            parameters.field("user", user)
            parameters.field("pin", pin)
            parameters.optionalField("label", label)
            parameters.optionalField("purpose", purpose)
            parameters.optionalField("algorithm", algorithm)
        }
    }

    /// Authenticate with a fresh 32-byte random challenge.
    static func authenticate(user: String, keyId: String) -> [UInt8] {
        let challenge = RandomBytes.make(count: 32)
        return request("Authenticate") { parameters in
            parameters.field("user", user)
            parameters.field("keyId", keyId)
            parameters.field("pin", pin)
            parameters.field("challenge", Base64.encodedString(challenge))
        }
    }

    static func list(user: String) -> [UInt8] {
        request("List") { $0.field("user", user) }
    }

    /// The bytes of a call to `io.pinvault.Vault.<method>`, built once.
    private static func request(_ method: String, _ parameters: (inout JSONObjectWriter) -> Void = { _ in }) -> [UInt8] {
        VarlinkClient.request(interface + "." + method, parameters)
    }

    static func unlock(user: String, keyId: String, ttlSeconds: Int64) -> [UInt8] {
        request("Unlock") { parameters in
            parameters.field("user", user)
            parameters.field("keyId", keyId)
            parameters.field("pin", pin)
            parameters.field("ttlSeconds", ttlSeconds)
        }
    }

    static func sign(keyId: String, challenge: [UInt8]) -> [UInt8] {
        request("Sign") { parameters in
            parameters.field("keyId", keyId)
            parameters.field("challenge", Base64.encodedString(challenge))
        }
    }

    /// The raw public key (`parameters.credential.publicKey`) of a Register reply.
    static func publicKey(fromRegisterReply reply: UnsafeRawBufferPointer) throws -> [UInt8] {
        let document = try parse(reply)
        guard let parameters = document.member("parameters", of: document.root),
              let credential = document.member("credential", of: parameters),
              let key = document.member("publicKey", of: credential),
              let text = document.string(key), let bytes = try? Base64.decode(text), ProtocolLimits.publicKeyBytes.contains(bytes.count) else {
            throw BenchError("Register failed: \(String(decoding: reply, as: UTF8.self))")
        }
        return bytes
    }

    /// `parameters.credential.keyId` of a Register reply.
    static func keyId(fromRegisterReply reply: UnsafeRawBufferPointer) throws -> String {
        let document = try parse(reply)
        guard let parameters = document.member("parameters", of: document.root),
              let credential = document.member("credential", of: parameters),
              let keyId = document.member("keyId", of: credential),
              let text = document.string(keyId) else {
            throw BenchError("Register failed: \(String(decoding: reply, as: UTF8.self))")
        }
        return text
    }

    /// How many credentials a List reply holds.
    static func credentialCount(fromListReply reply: UnsafeRawBufferPointer) throws -> Int {
        let document = try parse(reply)
        guard let parameters = document.member("parameters", of: document.root),
              let credentials = document.member("credentials", of: parameters) else {
            throw BenchError("List failed: \(String(decoding: reply, as: UTF8.self))")
        }
        return document.elements(of: credentials).count
    }

    /// `parameters.valid` of a CheckPin reply.
    static func isValid(checkPinReply reply: UnsafeRawBufferPointer) throws -> Bool {
        let document = try parse(reply)
        guard let parameters = document.member("parameters", of: document.root),
              let valid = document.member("valid", of: parameters) else { return false }
        return document.bool(valid) ?? false
    }

    private static func parse(_ reply: UnsafeRawBufferPointer) throws -> JSONDocument {
        do {
            return try JSONDocument.parse(reply)
        } catch {
            throw BenchError("unparsable reply: \(String(decoding: reply, as: UTF8.self))")
        }
    }
}
