import PinVaultCrypto

extension VarlinkCall {
    /// Appends a call message `{"method":…,"parameters":{…}}` and its NUL, as a client
    /// sends it. `oneway` is written only when true.
    public static func append(
        method: String,
        oneway: Bool = false,
        to buffer: ReplyBuffer,
        _ parameters: (inout JSONObjectWriter) -> Void = { _ in }
    ) {
        JSONWriter.writeObject(into: buffer) { message in
            message.field("method", method)
            message.objectField("parameters", parameters)
            if oneway { message.field("oneway", true) }
        }
        buffer.append(0)
    }
}
