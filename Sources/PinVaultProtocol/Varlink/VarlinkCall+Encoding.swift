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
        buffer.write { output in
            JSONWriter.writeObject(into: &output) { message in
                message.field("method", method)
                message.objectField("parameters", parameters)
                if oneway { message.field("oneway", true) }
            }
            output.append(0)
        }
    }
}
