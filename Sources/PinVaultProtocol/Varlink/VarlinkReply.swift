import PinVaultCrypto

/// Encodes replies: `{"parameters":{…}}` or `{"error":"…","parameters":{…}}`, each
/// followed by the NUL that ends a Varlink message.
///
/// `continues` is never written: PinVault answers every call with exactly one reply.
/// Several replies may be appended to one buffer (pipelined calls).
public enum VarlinkReply {
    /// Appends a successful reply whose parameters `body` writes (none by default).
    public static func appendSuccess(
        to buffer: ReplyBuffer,
        _ body: (inout JSONObjectWriter) -> Void = { _ in }
    ) {
        buffer.write { output in
            JSONWriter.writeObject(into: &output) { message in
                message.objectField("parameters", body)
            }
            output.append(0)
        }
    }

    /// Appends an error reply named `name` (fully qualified) with parameters from `body`.
    public static func appendError(
        _ name: String,
        to buffer: ReplyBuffer,
        _ body: (inout JSONObjectWriter) -> Void = { _ in }
    ) {
        buffer.write { output in
            JSONWriter.writeObject(into: &output) { message in
                message.field("error", name)
                message.objectField("parameters", body)
            }
            output.append(0)
        }
    }

    /// Appends an `org.varlink.service` error reply.
    public static func appendError(_ error: VarlinkServiceError, to buffer: ReplyBuffer) {
        appendError(error.name, to: buffer) { error.writeParameters(&$0) }
    }
}
