import PinVaultProtocol

/// What every reply of pinvaultd must be: one JSON object, with an `error` name or
/// `parameters` (or neither, for an empty success), and readable by the client's decoder.
enum ReplyCheck {
    /// Checks one reply (NUL excluded) and returns it parsed.
    @discardableResult
    static func verify(_ bytes: UnsafeRawBufferPointer) -> VarlinkReplyMessage {
        guard !bytes.contains(0) else { FuzzHarness.trap("a reply with a NUL inside") }
        let message: VarlinkReplyMessage
        do {
            message = try VarlinkReplyMessage.parse(bytes)
        } catch {
            FuzzHarness.trap("a reply the client cannot read: \(String(decoding: bytes, as: UTF8.self))")
        }
        guard !message.continues else { FuzzHarness.trap("a reply with continues") }
        if let error = message.error {
            guard error.hasPrefix("org.varlink.service.") || error.hasPrefix("io.pinvault.Vault.") else {
                FuzzHarness.trap("an error outside both interfaces: \(error)")
            }
        }
        return message
    }
}
