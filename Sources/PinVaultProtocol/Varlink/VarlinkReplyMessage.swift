/// A reply as a client reads it: the error name, if any, and the parameters.
///
/// Like `VarlinkCall`, it reads the frame in place and is valid only while the frame
/// lives unchanged.
public struct VarlinkReplyMessage {
    /// The fully qualified error name, or nil for success.
    public let error: String?
    /// Whether more replies to the same call follow.
    public let continues: Bool
    /// The reply's parameters (empty when absent or `null`).
    public let parameters: ParameterDecoder

    /// Why a frame is not a Varlink reply.
    public enum ParseError: Error, Equatable, Sendable {
        /// Not a JSON object, or a field of the wrong type.
        case malformed
    }

    /// Parses one frame (NUL excluded).
    public static func parse(_ frame: UnsafeRawBufferPointer) throws(ParseError) -> VarlinkReplyMessage {
        let document: JSONDocument
        do {
            document = try JSONDocument.parse(frame)
        } catch {
            throw .malformed
        }
        guard document[document.root].kind == .object else { throw .malformed }
        let envelope = ParameterDecoder(document: document, object: document.root)
        do {
            let error = try envelope.string("error", required: false, bytes: 1...ProtocolLimits.maxMethodNameBytes)
            let continues = try envelope.bool("continues", required: false) ?? false
            let parameters = try envelope.object("parameters", required: false)
            return VarlinkReplyMessage(
                error: error,
                continues: continues,
                parameters: parameters ?? ParameterDecoder(document: document, object: nil)
            )
        } catch {
            throw .malformed
        }
    }
}
