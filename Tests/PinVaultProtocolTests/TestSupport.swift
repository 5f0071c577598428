import PinVaultCrypto
@testable import PinVaultProtocol
import XCTest

/// Parses `text` and hands the document to `body` while its bytes are alive.
func withDocument<R>(_ text: String, _ body: (JSONDocument) throws -> R) throws -> R {
    try withDocument(bytes: Array(text.utf8), body)
}

/// Parses `bytes` and hands the document to `body` while they are alive.
func withDocument<R>(bytes: [UInt8], _ body: (JSONDocument) throws -> R) throws -> R {
    try bytes.withUnsafeBytes { raw in
        let document = try JSONDocument.parse(raw)
        return try body(document)
    }
}

/// The parse error for `bytes`, or nil when they parse.
func parseError(_ bytes: [UInt8], maxDepth: Int = ProtocolLimits.maxJSONDepth) -> JSONError? {
    bytes.withUnsafeBytes { raw -> JSONError? in
        do throws(JSONError) {
            _ = try JSONDocument.parse(raw, maxDepth: maxDepth)
            return nil
        } catch {
            return error
        }
    }
}

/// Parses `text` as a call's parameters object and hands a decoder to `body`.
func withParameters<R>(_ text: String, _ body: (ParameterDecoder) throws -> R) throws -> R {
    try withDocument(text) { document in
        try body(ParameterDecoder(document: document, object: document.root))
    }
}

/// The bytes of a secret, copied out for an assertion.
func contents(of secret: SecretBytes) -> [UInt8] {
    secret.withUnsafeBytes { Array($0) }
}

/// The buffer's bytes as text (for replies holding no secret).
func text(of buffer: ReplyBuffer) -> String {
    String(decoding: buffer.copyBytes(), as: UTF8.self)
}

/// The writer's appends straight into a `ReplyBuffer`, one access each, for tests that
/// check one value's encoding.
extension JSONWriter {
    static func appendString(_ string: String, to buffer: ReplyBuffer) {
        buffer.write { appendString(string, to: &$0) }
    }

    static func appendInt(_ value: Int64, to buffer: ReplyBuffer) {
        buffer.write { appendInt(value, to: &$0) }
    }

    static func appendBool(_ value: Bool, to buffer: ReplyBuffer) {
        buffer.write { appendBool(value, to: &$0) }
    }

    static func appendNull(to buffer: ReplyBuffer) {
        buffer.write { appendNull(to: &$0) }
    }

    static func appendKey(_ key: StaticString, separated: Bool, to buffer: ReplyBuffer) {
        buffer.write { appendKey(key, separated: separated, to: &$0) }
    }

    static func appendSecretString(_ secret: SecretBytes, encoding: SecretStringEncoding, to buffer: ReplyBuffer) {
        buffer.write { appendSecretString(secret, encoding: encoding, to: &$0) }
    }
}
