import PinVaultProtocol

/// The client's side of the protocol over the same bytes: each frame read as a reply
/// and its parameters decoded as each of the interface's reply types. Any answer is
/// fine; a trap or a sanitizer report is a finding.
enum ClientDecoding {
    static func exercise(_ frame: UnsafeRawBufferPointer) {
        guard let message = try? VarlinkReplyMessage.parse(frame) else { return }
        let parameters = message.parameters
        if let error = message.error, let name = VaultErrorName(qualifiedName: error) {
            // Each parameter the interface declares for the error, read as each type the
            // client reads error parameters as.
            for key in name.parameterNames {
                _ = try? parameters.int(key, required: true, range: Int64.min...Int64.max)
                _ = try? parameters.strings(key, required: true, bytes: 1...64)
                _ = try? parameters.time(key, required: true)
            }
        }
        _ = try? VaultCredential(from: parameters)
        _ = try? VaultPinPolicy(from: parameters)
        _ = try? VaultStats(from: parameters)
        _ = try? VaultPasskey(from: parameters)
        _ = try? parameters.objects("credentials", required: false)?.map { try VaultCredential(from: $0) }
        _ = try? parameters.time("expiresAt", required: false)
        _ = try? parameters.strings("violations", required: false, bytes: 1...64)
        _ = try? parameters.base64("signature", required: false, decodedBytes: 64...64)
        _ = try? parameters.secretBase64("token", required: false, alphabet: .url, decodedBytes: 32...32)
        _ = parameters.names
    }
}
