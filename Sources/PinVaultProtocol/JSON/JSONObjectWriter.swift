import PinVaultCrypto

/// Writes the members of one JSON object; obtained from `JSONWriter.writeObject` or a
/// parent writer. Keys are written in call order; the caller never repeats a key.
///
/// Keys are literals — the interface's member names — so they are `StaticString`s,
/// written in one append without an escape scan: a key must need no escaping (no `"`,
/// `\` or control character), which debug builds check.
public struct JSONObjectWriter: ~Copyable {
    private var output: ReplyBytes
    private var isFirst = true

    init(output: consuming ReplyBytes) {
        self.output = output
    }

    /// Gives the bytes back to the container's writer.
    consuming func finish() -> ReplyBytes {
        output
    }

    /// `"key": "value"`.
    public mutating func field(_ key: StaticString, _ value: String) {
        writeKey(key)
        JSONWriter.appendString(value, to: &output)
    }

    /// `"key": value` for an integer.
    public mutating func field(_ key: StaticString, _ value: Int64) {
        writeKey(key)
        JSONWriter.appendInt(value, to: &output)
    }

    /// `"key": value` for an integer.
    public mutating func field(_ key: StaticString, _ value: Int) {
        field(key, Int64(value))
    }

    /// `"key": true|false`.
    public mutating func field(_ key: StaticString, _ value: Bool) {
        writeKey(key)
        JSONWriter.appendBool(value, to: &output)
    }

    /// `"key": "value"`, or nothing at all when `value` is nil (Varlink's `?string`:
    /// an absent field and a `null` one mean the same).
    public mutating func optionalField(_ key: StaticString, _ value: String?) {
        if let value { field(key, value) }
    }

    /// `"key": value`, or nothing when `value` is nil.
    public mutating func optionalField(_ key: StaticString, _ value: Int64?) {
        if let value { field(key, value) }
    }

    /// `"key": null`.
    public mutating func nullField(_ key: StaticString) {
        writeKey(key)
        JSONWriter.appendNull(to: &output)
    }

    /// `"key": ["a", "b"]`.
    public mutating func field(_ key: StaticString, strings: [String]) {
        arrayField(key) { array in
            for string in strings { array.element(string) }
        }
    }

    /// `"key": "<base64>"`: `bytes` in standard base64 (RFC 4648 §4), written straight
    /// into the output (no string between, no escape scan: base64 needs none).
    public mutating func base64Field(_ key: StaticString, _ bytes: [UInt8]) {
        writeKey(key)
        JSONWriter.appendBase64(bytes, to: &output)
    }

    /// `"key": "<secret>"`, written straight from secret memory.
    public mutating func secretField(_ key: StaticString, _ secret: SecretBytes, encoding: SecretStringEncoding) {
        writeKey(key)
        JSONWriter.appendSecretString(secret, encoding: encoding, to: &output)
    }

    /// `"key": {…}`.
    public mutating func objectField(_ key: StaticString, _ body: (inout JSONObjectWriter) -> Void) {
        writeKey(key)
        JSONWriter.writeObject(into: &output, body)
    }

    /// `"key": […]`.
    public mutating func arrayField(_ key: StaticString, _ body: (inout JSONArrayWriter) -> Void) {
        writeKey(key)
        JSONWriter.writeArray(into: &output, body)
    }

    private mutating func writeKey(_ key: StaticString) {
        JSONWriter.appendKey(key, separated: !isFirst, to: &output)
        isFirst = false
    }
}
