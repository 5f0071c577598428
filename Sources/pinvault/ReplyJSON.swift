import PinVaultClient
import PinVaultCrypto
import PinVaultProtocol

// The replies as `--json` prints them: the Varlink reply's own field names, in the
// interface's order, with its encodings. Absent optional fields are left out, as the
// daemon leaves them out. The interface's types are written by the same generated code
// the daemon uses; the method replies, which are no types of the interface, here.

extension JSONValue {
    /// An interface type's object as the daemon writes it (its generated `writeFields`),
    /// read back to be printed indented: `--json` and the wire cannot drift apart.
    init(interfaceFields write: (inout JSONObjectWriter) -> Void) {
        let buffer = ReplyBuffer()
        JSONWriter.writeObject(into: buffer, write)
        self = buffer.withUnsafeBytes { bytes in
            // What JSONWriter wrote parses; .null would only mean a writer bug.
            guard let document = try? JSONDocument.parse(bytes) else { return .null }
            return JSONValue(document, node: document.root)
        }
    }

    private init(_ document: JSONDocument, node: Int) {
        switch document[node].kind {
        case .object:
            self = .object(document.members(of: node).map { (document.string($0.key) ?? "", JSONValue(document, node: $0.value)) })
        case .array: self = .array(document.elements(of: node).map { JSONValue(document, node: $0) })
        case .string: self = .string(document.string(node) ?? "")
        case .number: self = document.int64(node).map { .int(Int($0)) } ?? .null
        case .bool: self = .bool(document.bool(node) ?? false)
        case .null: self = .null
        }
    }
}

extension Credential {
    /// The interface's `Credential` object.
    var json: JSONValue { JSONValue(interfaceFields: { writeFields(&$0) }) }
}

extension PinPolicy {
    /// The interface's `PinPolicy` object.
    var json: JSONValue { JSONValue(interfaceFields: { writeFields(&$0) }) }
}

extension Stats {
    /// The interface's `Stats` object.
    var json: JSONValue { JSONValue(interfaceFields: { writeFields(&$0) }) }
}

extension PinCheck {
    /// CheckPin's reply.
    var json: JSONValue {
        .object([("valid", .bool(valid)), ("violations", .array(violations.map { .string($0.rawValue) }))])
    }
}

extension Authentication {
    /// Authenticate's reply.
    var json: JSONValue {
        .object([
            ("keyId", .string(keyId)),
            ("publicKey", .string(WireText.base64(publicKey))),
            ("signature", .string(WireText.base64(signature))),
            ("pinPolicyOutdated", .bool(pinPolicyOutdated)),
            ("failedAttemptsCleared", .int(failedAttemptsCleared)),
        ])
    }
}

extension PendingUnregistration {
    /// BeginUnregister's reply; the token is written from its secret memory.
    var json: JSONValue {
        .object([
            ("keyId", .string(keyId)), ("token", .token(token)), ("expiresAt", .string(WireText.time(expiresAt))),
            ("failedAttemptsCleared", .int(failedAttemptsCleared)),
        ])
    }
}

extension WipeResult {
    /// Wipe's reply.
    var json: JSONValue {
        .object([
            ("user", .string(user)), ("deletedKeyIds", .array(deletedKeyIds.map { .string($0) })),
            ("failedAttemptsCleared", .int(failedAttemptsCleared)),
        ])
    }
}

extension UnlockSession {
    /// Unlock's reply.
    var json: JSONValue {
        .object([
            ("keyId", .string(keyId)),
            ("unlockedUntil", .string(WireText.time(unlockedUntil))),
            ("failedAttemptsCleared", .int(failedAttemptsCleared)),
        ])
    }
}
