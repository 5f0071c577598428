/// One method call, parsed from a frame.
///
/// Like the `JSONDocument` under it, a call reads the frame's bytes in place: it and its
/// `parameters` are valid only while the frame lives unchanged. Decode what the method
/// needs into owned values first, then zero the frame.
///
/// The method name stays in the frame too (unless it was written with escapes): a
/// dispatcher compares the interface with `isInterface(_:)` without making a `String`;
/// `method`, `interface` and `methodName` make one when asked (a member name of up to
/// 15 bytes, as every PinVault method's, fits in a `String` without an allocation).
public struct VarlinkCall {
    /// The caller wants no reply.
    public let oneway: Bool
    /// The caller accepts several replies (PinVault always sends one).
    public let more: Bool
    /// The caller asks to leave Varlink after the reply (PinVault does not support it).
    public let upgrade: Bool
    /// The call's parameters (empty when absent or `null`).
    public let parameters: ParameterDecoder
    /// `"interface.Method"` as bytes, and where its last dot is.
    private let name: QualifiedName
    private let dot: Int

    /// Where the qualified method name's UTF-8 lives.
    private enum QualifiedName {
        /// In the frame, between these offsets (written without escapes).
        case inFrame(Range<Int>)
        /// Decoded from escapes.
        case decoded(String)
    }

    /// `"interface.Method"`, as sent.
    public var method: String {
        withName { String(decoding: $0, as: UTF8.self) }
    }

    /// The interface half of `method`.
    public var interface: String {
        withName { String(decoding: UnsafeRawBufferPointer(rebasing: $0[..<dot]), as: UTF8.self) }
    }

    /// The member half of `method`.
    public var methodName: String {
        withName { String(decoding: UnsafeRawBufferPointer(rebasing: $0[(dot + 1)...]), as: UTF8.self) }
    }

    /// Whether the interface half of `method` is `name`, compared without allocating.
    public func isInterface(_ name: String) -> Bool {
        var name = name
        return withName { bytes in
            name.withUTF8 { UnsafeRawBufferPointer(rebasing: bytes[..<dot]).hasSameBytes(as: UnsafeRawBufferPointer($0)) }
        }
    }

    /// Parses one frame (NUL excluded). Unknown top-level fields are ignored, as the
    /// Varlink specification allows for forward compatibility.
    public static func parse(_ frame: UnsafeRawBufferPointer) throws(VarlinkCallError) -> VarlinkCall {
        let document: JSONDocument
        do {
            document = try JSONDocument.parse(frame)
        } catch {
            throw .protocolViolation
        }
        guard document[document.root].kind == .object else { throw .protocolViolation }
        let fields = TopLevelFields(of: document)
        guard let methodNode = fields.method, document[methodNode].kind == .string else {
            throw .protocolViolation
        }
        // The flags first: a oneway call must get no reply, not even an error.
        let oneway = try flag(fields.oneway, "oneway", in: document, oneway: false)
        let more = try flag(fields.more, "more", in: document, oneway: oneway)
        let upgrade = try flag(fields.upgrade, "upgrade", in: document, oneway: oneway)
        guard document.decodedLength(methodNode) <= ProtocolLimits.maxMethodNameBytes,
              let (name, dot) = qualifiedName(methodNode, in: document) else {
            throw .invalidField("method", oneway: oneway)
        }
        let parameters: Int?
        switch fields.parameters {
        case .none:
            parameters = nil
        case .some(let node) where document.isNull(node):
            parameters = nil
        case .some(let node) where document[node].kind == .object:
            parameters = node
        case .some:
            throw .invalidField("parameters", oneway: oneway)
        }
        return VarlinkCall(
            oneway: oneway,
            more: more,
            upgrade: upgrade,
            parameters: ParameterDecoder(document: document, object: parameters),
            name: name,
            dot: dot
        )
    }

    /// The value nodes of the fields a call may have, found in one pass over the root's
    /// members (the parser already refused duplicate keys).
    private struct TopLevelFields {
        var method: Int?
        var parameters: Int?
        var oneway: Int?
        var more: Int?
        var upgrade: Int?

        init(of document: JSONDocument) {
            var key = document.root + 1
            for _ in 0..<document[document.root].childCount {
                let value = key + 1
                if document.stringEquals(key, "method" as StaticString) {
                    method = value
                } else if document.stringEquals(key, "parameters" as StaticString) {
                    parameters = value
                } else if document.stringEquals(key, "oneway" as StaticString) {
                    oneway = value
                } else if document.stringEquals(key, "more" as StaticString) {
                    more = value
                } else if document.stringEquals(key, "upgrade" as StaticString) {
                    upgrade = value
                }
                key = document[value].subtreeEnd
            }
        }
    }

    /// The method name and its splitting dot, when it is a valid `interface.Member`.
    private static func qualifiedName(_ node: Int, in document: JSONDocument) -> (QualifiedName, Int)? {
        let range = document[node].range
        guard document[node].hasEscapes else {
            let bytes = UnsafeRawBufferPointer(rebasing: document.bytes[range])
            return VarlinkName.splitOffset(qualified: bytes).map { (.inFrame(range), $0) }
        }
        guard var decoded = document.string(node) else { return nil }
        return decoded.withUTF8 { VarlinkName.splitOffset(qualified: UnsafeRawBufferPointer($0)) }
            .map { (.decoded(decoded), $0) }
    }

    private func withName<R>(_ body: (UnsafeRawBufferPointer) -> R) -> R {
        switch name {
        case .inFrame(let range):
            return body(UnsafeRawBufferPointer(rebasing: parameters.document.bytes[range]))
        case .decoded(var decoded):
            return decoded.withUTF8 { body(UnsafeRawBufferPointer($0)) }
        }
    }

    private static func flag(_ node: Int?, _ name: String, in document: JSONDocument, oneway: Bool) throws(VarlinkCallError) -> Bool {
        guard let node, !document.isNull(node) else { return false }
        guard let value = document.bool(node) else { throw .invalidField(name, oneway: oneway) }
        return value
    }
}
