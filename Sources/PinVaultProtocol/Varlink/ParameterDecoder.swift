import PinVaultCrypto

/// Typed access to one JSON object's members: a call's parameters, a reply's
/// parameters, or a nested object such as a `Credential`.
///
/// Every accessor names the member it reads in the `ParameterError` it throws. `null`
/// means absent, as in Varlink's optional types. Lengths are checked on the decoded
/// bytes before anything is allocated for the value. Valid only while the frame the
/// document was parsed from lives unchanged.
public struct ParameterDecoder {
    /// The document the object belongs to.
    public let document: JSONDocument
    /// The object node, or nil for an empty parameter set.
    public let object: Int?

    /// A decoder over the object at `object` (nil: no members at all).
    public init(document: JSONDocument, object: Int?) {
        self.document = document
        self.object = object
    }

    /// The names of all members, in document order.
    public var names: [String] {
        guard let object else { return [] }
        return document.members(of: object).compactMap { document.string($0.key) }
    }

    /// Whether `name` is present and not `null`.
    public func contains(_ name: String) -> Bool {
        node(name) != nil
    }

    /// Refuses the first member whose name is not in `allowed`.
    public func rejectUnknown(allowed: Set<String>) throws(ParameterError) {
        guard let object else { return }
        for member in document.members(of: object) {
            let name = document.string(member.key) ?? ""
            guard allowed.contains(name) else { throw ParameterError(name, .unknown) }
        }
    }

    // MARK: Scalars

    /// A string of `bytes` UTF-8 bytes (after unescaping). Not for secrets.
    public func string(_ name: String, required: Bool, bytes: ClosedRange<Int>) throws(ParameterError) -> String? {
        guard let node = try present(name, required: required) else { return nil }
        guard document[node].kind == .string else { throw ParameterError(name, .wrongType) }
        guard bytes.contains(document.decodedLength(node)) else { throw ParameterError(name, .outOfRange) }
        guard let value = document.string(node) else { throw ParameterError(name, .malformed) }
        return value
    }

    /// A string of `bytes` bytes unescaped straight into secret memory (a PIN): the
    /// value never exists as a Swift `String` or `Array`.
    public func secret(_ name: String, required: Bool, bytes: ClosedRange<Int>) throws(ParameterError) -> SecretBytes? {
        guard let node = try present(name, required: required) else { return nil }
        guard document[node].kind == .string else { throw ParameterError(name, .wrongType) }
        let length = document.decodedLength(node)
        guard bytes.contains(length) else { throw ParameterError(name, .outOfRange) }
        let secret: SecretBytes
        do {
            secret = try SecretBytes(capacity: length)
        } catch {
            throw ParameterError(name, .outOfMemory)
        }
        guard document.decodeString(node, into: { secret.append($0) }) else {
            secret.wipe()
            throw ParameterError(name, .malformed)
        }
        return secret
    }

    /// An integer within `range`. Numbers with a fraction or exponent (`1.0`, `1e3`)
    /// are `.wrongType`: Varlink's `int` is written as an integer.
    public func int(_ name: String, required: Bool, range: ClosedRange<Int64>) throws(ParameterError) -> Int64? {
        guard let node = try present(name, required: required) else { return nil }
        guard document[node].kind == .number else { throw ParameterError(name, .wrongType) }
        guard document[node].flag else { throw ParameterError(name, .wrongType) }
        guard let value = document.int64(node), range.contains(value) else {
            throw ParameterError(name, .outOfRange)
        }
        return value
    }

    /// A boolean.
    public func bool(_ name: String, required: Bool) throws(ParameterError) -> Bool? {
        guard let node = try present(name, required: required) else { return nil }
        guard let value = document.bool(node) else { throw ParameterError(name, .wrongType) }
        return value
    }

    /// A `keyId`: exactly 32 lowercase hex digits.
    public func keyID(_ name: String = "keyId", required: Bool) throws(ParameterError) -> KeyID? {
        guard let text = try string(name, required: required, bytes: ProtocolLimits.keyIdHexDigits...ProtocolLimits.keyIdHexDigits) else {
            return nil
        }
        guard let keyID = KeyID(hex: text) else { throw ParameterError(name, .malformed) }
        return keyID
    }

    /// One of `T`'s raw values (a Varlink enum such as `state`).
    public func enumeration<T: RawRepresentable>(
        _ name: String, required: Bool, as type: T.Type
    ) throws(ParameterError) -> T? where T.RawValue == String {
        guard let text = try string(name, required: required, bytes: 1...64) else { return nil }
        guard let value = T(rawValue: text) else { throw ParameterError(name, .malformed) }
        return value
    }

    // MARK: Base64

    /// Canonical base64 decoding to `decodedBytes` bytes. Not for secrets.
    public func base64(
        _ name: String, required: Bool, alphabet: Base64.Alphabet = .standard, decodedBytes: ClosedRange<Int>
    ) throws(ParameterError) -> [UInt8]? {
        guard let node = try encodedText(name, required: required, decodedBytes: decodedBytes) else { return nil }
        return try decodeBase64(node, name, alphabet: alphabet, decodedBytes: decodedBytes)
    }

    /// An optional array of standard base64 strings, each decoding to `decodedBytes`
    /// bytes: empty when absent.
    public func base64Strings(
        _ name: String, maxCount: Int = 64, decodedBytes: ClosedRange<Int>
    ) throws(ParameterError) -> [[UInt8]] {
        guard let elements = try array(name, required: false, maxCount: maxCount) else { return [] }
        var result: [[UInt8]] = []
        for element in elements {
            guard document[element].kind == .string else { throw ParameterError(name, .wrongType) }
            let length = document.decodedLength(element)
            guard Base64.maximumDecodedLength(encodedCount: length) >= decodedBytes.lowerBound,
                  length <= (decodedBytes.upperBound + 2) / 3 * 4 else { throw ParameterError(name, .outOfRange) }
            result.append(try decodeBase64(element, name, alphabet: .standard, decodedBytes: decodedBytes))
        }
        return result
    }

    private func decodeBase64(
        _ node: Int, _ name: String, alphabet: Base64.Alphabet, decodedBytes: ClosedRange<Int>
    ) throws(ParameterError) -> [UInt8] {
        var text = [UInt8]()
        text.reserveCapacity(document[node].range.count)
        _ = document.decodeString(node) { text.append($0); return true }
        var out = [UInt8]()
        out.reserveCapacity(Base64.maximumDecodedLength(encodedCount: text.count))
        let decoded: Bool = text.withUnsafeBytes { raw in
            do {
                try Base64.decode(raw, alphabet: alphabet) { out.append($0); return true }
                return true
            } catch {
                return false
            }
        }
        guard decoded else { throw ParameterError(name, .malformed) }
        guard decodedBytes.contains(out.count) else { throw ParameterError(name, .outOfRange) }
        return out
    }

    /// Canonical base64 decoded straight into secret memory (the unregistration token):
    /// neither the text nor the bytes pass through a Swift `String` or `Array`.
    public func secretBase64(
        _ name: String, required: Bool, alphabet: Base64.Alphabet, decodedBytes: ClosedRange<Int>
    ) throws(ParameterError) -> SecretBytes? {
        let maxEncoded = (decodedBytes.upperBound + 2) / 3 * 4
        guard let text = try secret(name, required: required, bytes: 0...maxEncoded) else { return nil }
        defer { text.wipe() }
        let capacity = Base64.maximumDecodedLength(encodedCount: text.count)
        guard capacity >= decodedBytes.lowerBound else { throw ParameterError(name, .outOfRange) }
        let value: SecretBytes
        do {
            value = try SecretBytes(capacity: capacity)
        } catch {
            throw ParameterError(name, .outOfMemory)
        }
        let decoded: Bool = text.withUnsafeBytes { raw in
            do {
                try Base64.decode(raw, alphabet: alphabet, into: value)
                return true
            } catch {
                return false
            }
        }
        guard decoded else { throw ParameterError(name, .malformed) }
        guard decodedBytes.contains(value.count) else {
            value.wipe()
            throw ParameterError(name, .outOfRange)
        }
        return value
    }

    // MARK: Containers

    /// A nested object.
    public func object(_ name: String, required: Bool) throws(ParameterError) -> ParameterDecoder? {
        guard let node = try present(name, required: required) else { return nil }
        guard document[node].kind == .object else { throw ParameterError(name, .wrongType) }
        return ParameterDecoder(document: document, object: node)
    }

    /// An array of objects, at most `maxCount` long.
    public func objects(
        _ name: String, required: Bool, maxCount: Int = ProtocolLimits.maxReplyArrayCount
    ) throws(ParameterError) -> [ParameterDecoder]? {
        guard let elements = try array(name, required: required, maxCount: maxCount) else { return nil }
        var result: [ParameterDecoder] = []
        result.reserveCapacity(elements.count)
        for element in elements {
            guard document[element].kind == .object else { throw ParameterError(name, .wrongType) }
            result.append(ParameterDecoder(document: document, object: element))
        }
        return result
    }

    /// An array of strings, at most `maxCount` long, each of `bytes` bytes.
    public func strings(
        _ name: String, required: Bool, maxCount: Int = ProtocolLimits.maxReplyArrayCount, bytes: ClosedRange<Int>
    ) throws(ParameterError) -> [String]? {
        guard let elements = try array(name, required: required, maxCount: maxCount) else { return nil }
        var result: [String] = []
        result.reserveCapacity(elements.count)
        for element in elements {
            guard document[element].kind == .string else { throw ParameterError(name, .wrongType) }
            guard bytes.contains(document.decodedLength(element)),
                  let value = document.string(element) else { throw ParameterError(name, .outOfRange) }
            result.append(value)
        }
        return result
    }

    // MARK: Lookup

    private func array(_ name: String, required: Bool, maxCount: Int) throws(ParameterError) -> [Int]? {
        guard let node = try present(name, required: required) else { return nil }
        guard document[node].kind == .array else { throw ParameterError(name, .wrongType) }
        guard document[node].childCount <= maxCount else { throw ParameterError(name, .outOfRange) }
        return document.elements(of: node)
    }

    /// The string node of a base64 value whose length could decode to `decodedBytes`.
    private func encodedText(_ name: String, required: Bool, decodedBytes: ClosedRange<Int>) throws(ParameterError) -> Int? {
        guard let node = try present(name, required: required) else { return nil }
        guard document[node].kind == .string else { throw ParameterError(name, .wrongType) }
        let length = document.decodedLength(node)
        guard Base64.maximumDecodedLength(encodedCount: length) >= decodedBytes.lowerBound,
              length <= (decodedBytes.upperBound + 2) / 3 * 4 else {
            throw ParameterError(name, .outOfRange)
        }
        return node
    }

    /// The member's node; nil when absent or `null` and optional; `.missing` when
    /// absent or `null` and required.
    private func present(_ name: String, required: Bool) throws(ParameterError) -> Int? {
        if let node = node(name) { return node }
        if required { throw ParameterError(name, .missing) }
        return nil
    }

    private func node(_ name: String) -> Int? {
        guard let object, let node = document.member(name, of: object), !document.isNull(node) else { return nil }
        return node
    }
}
