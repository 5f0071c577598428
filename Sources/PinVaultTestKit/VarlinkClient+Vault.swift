import Foundation

/// `io.pinvault.Vault` calls with less ceremony, for tests.
extension VarlinkClient {
    /// The Vault interface's name, as method names are prefixed with it.
    public static let vault = "io.pinvault.Vault"

    /// Calls `io.pinvault.Vault.<method>`.
    public func vault(_ method: String, _ parameters: [String: Any] = [:]) throws -> VarlinkResponse {
        try call(Self.vault + "." + method, parameters)
    }

    /// Calls `method` and returns its reply; throws when the daemon answered an error.
    public func succeeding(_ method: String, _ parameters: [String: Any] = [:]) throws -> VarlinkResponse {
        let reply = try vault(method, parameters)
        if let error = reply.error { throw TestKitError("\(method) failed with \(error): \(reply)") }
        return reply
    }

    /// Registers a credential (for `purpose` and with a key of `algorithm`, or the
    /// daemon's defaults) and returns it.
    @discardableResult
    public func register(
        user: String, pin: String, label: String? = nil, purpose: String? = nil, algorithm: String? = nil
    ) throws -> [String: Any] {
        var parameters: [String: Any] = ["user": user, "pin": pin]
        if let label { parameters["label"] = label }
        if let purpose { parameters["purpose"] = purpose }
        if let algorithm { parameters["algorithm"] = algorithm }
        let reply = try succeeding("Register", parameters)
        guard let credential = reply.object("credential") else { throw TestKitError("no credential in \(reply)") }
        return credential
    }

    /// Authenticate over `challenge` (default: a fixed short one).
    public func authenticate(user: String, pin: String, keyId: String? = nil, challenge: Data = Data("challenge".utf8)) throws -> VarlinkResponse {
        var parameters: [String: Any] = ["user": user, "pin": pin, "challenge": challenge.base64EncodedString()]
        if let keyId { parameters["keyId"] = keyId }
        return try vault("Authenticate", parameters)
    }

    /// The caller's credentials (of `user`, when given).
    public func list(user: String? = nil, ownerUid: Int? = nil) throws -> [[String: Any]] {
        var parameters: [String: Any] = [:]
        if let user { parameters["user"] = user }
        if let ownerUid { parameters["ownerUid"] = ownerUid }
        let reply = try succeeding("List", parameters)
        guard let credentials = reply["credentials"] as? [[String: Any]] else { throw TestKitError("no credentials in \(reply)") }
        return credentials
    }

    /// The one credential with `keyId`, as List reports it now.
    public func credential(keyId: String) throws -> [String: Any] {
        guard let found = try list().first(where: { $0["keyId"] as? String == keyId }) else {
            throw TestKitError("no credential \(keyId) in List")
        }
        return found
    }
}
