import PinVaultCTAPHID
import PinVaultCrypto

/// What answers CTAPHID_CBOR until a CTAP2 authenticator is assembled in `VaultAssembly`:
/// every command is CTAP1_ERR_INVALID_COMMAND, which clients read as "not supported". The
/// door itself (INIT, PING, WINK, CANCEL, errors) is served in full.
final class NoCTAP2Commands: CTAPAuthenticator {
    func cbor(_ request: SecretBytes, on channel: CTAPChannel, reply: @escaping @Sendable (ReplyBuffer) -> Void) {
        request.wipe()
        let response = ReplyBuffer(capacity: 1)
        response.append(0x01)  // CTAP1_ERR_INVALID_COMMAND
        reply(response)
    }

    func cancel(_ channel: CTAPChannel) {}
    func channelClosed(_ channel: CTAPChannel) {}
}
