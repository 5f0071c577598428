/// One method call, parsed from a frame.
///
/// Like the `JSONDocument` under it, a call reads the frame's bytes in place: it and its
/// `parameters` are valid only while the frame lives unchanged. Decode what the method
/// needs into owned values first, then zero the frame.
public struct VarlinkCall {
    /// `"interface.Method"`, as sent.
    public let method: String
    /// The interface half of `method`.
    public let interface: String
    /// The member half of `method`.
    public let methodName: String
    /// The caller wants no reply.
    public let oneway: Bool
    /// The caller accepts several replies (PinVault always sends one).
    public let more: Bool
    /// The caller asks to leave Varlink after the reply (PinVault does not support it).
    public let upgrade: Bool
    /// The call's parameters (empty when absent or `null`).
    public let parameters: ParameterDecoder

    /// Parses one frame (NUL excluded). Unknown top-level fields are ignored, as the
    /// Varlink specification allows for forward compatibility.
    public static func parse(_ frame: UnsafeRawBufferPointer) throws(VarlinkCallError) -> VarlinkCall {
        let document: JSONDocument
        do {
            document = try JSONDocument.parse(frame)
        } catch {
            throw .protocolViolation
        }
        guard document[document.root].kind == .object,
              let methodNode = document.member("method", of: document.root),
              document[methodNode].kind == .string else {
            throw .protocolViolation
        }
        // The flags first: a oneway call must get no reply, not even an error.
        let oneway = try flag("oneway", in: document, oneway: false)
        let more = try flag("more", in: document, oneway: oneway)
        let upgrade = try flag("upgrade", in: document, oneway: oneway)
        guard document.decodedLength(methodNode) <= ProtocolLimits.maxMethodNameBytes,
              let method = document.string(methodNode),
              let names = VarlinkName.split(qualified: method) else {
            throw .invalidField("method", oneway: oneway)
        }
        let parameters: Int?
        switch document.member("parameters", of: document.root) {
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
            method: method,
            interface: names.interface,
            methodName: names.member,
            oneway: oneway,
            more: more,
            upgrade: upgrade,
            parameters: ParameterDecoder(document: document, object: parameters)
        )
    }

    private static func flag(_ name: String, in document: JSONDocument, oneway: Bool) throws(VarlinkCallError) -> Bool {
        guard let node = document.member(name, of: document.root), !document.isNull(node) else { return false }
        guard let value = document.bool(node) else { throw .invalidField(name, oneway: oneway) }
        return value
    }
}
