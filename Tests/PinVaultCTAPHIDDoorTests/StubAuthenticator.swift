import Glibc
import PinVaultCTAPHID
import PinVaultCrypto
import PinVaultSystem

/// An authenticator for the door's own tests: GetInfo (0x04) answers at once with a small
/// GetInfo-like map, command 0x42 is held until the test releases it or CANCEL comes, and
/// every call is recorded.
final class StubAuthenticator: CTAPAuthenticator, @unchecked Sendable {
    /// {1: ["FIDO_2_0"]}, after status 0.
    static let getInfo: [UInt8] = [0x00, 0xA1, 0x01, 0x81, 0x68] + Array("FIDO_2_0".utf8)
    static let hold: UInt8 = 0x42

    private let lock = ConditionLock()
    private var held: [CTAPChannel: @Sendable (ReplyBuffer) -> Void] = [:]
    private(set) var requests: [(channel: CTAPChannel, bytes: [UInt8])] = []
    private(set) var closed: [CTAPChannel] = []
    private(set) var cancelled: [CTAPChannel] = []
    private(set) var winks: [CTAPChannel] = []

    func cbor(_ request: SecretBytes, on channel: CTAPChannel, reply: @escaping @Sendable (ReplyBuffer) -> Void) {
        let bytes = request.withUnsafeBytes { Array($0) }
        lock.withLock { requests.append((channel, bytes)) }
        if bytes.first == Self.hold {
            lock.withLock { held[channel] = reply }
            return
        }
        Self.answer(bytes.first == 0x04 ? Self.getInfo : [0x01], reply)
    }

    func cancel(_ channel: CTAPChannel) {
        lock.withLock { cancelled.append(channel) }
        release(channel, with: [CTAPHID.keepaliveCancelStatus])
    }

    func channelClosed(_ channel: CTAPChannel) {
        lock.withLock { closed.append(channel) }
    }

    func wink(_ channel: CTAPChannel) {
        lock.withLock { winks.append(channel) }
    }

    /// Answers the request held on `channel` (from this thread, not the loop's).
    func release(_ channel: CTAPChannel, with response: [UInt8] = [0x00]) {
        guard let reply = lock.withLock({ held.removeValue(forKey: channel) }) else { return }
        Self.answer(response, reply)
    }

    /// The channels with a request held now.
    var heldChannels: [CTAPChannel] { lock.withLock { Array(held.keys) } }
    var closedChannels: [CTAPChannel] { lock.withLock { closed } }
    var cancelledChannels: [CTAPChannel] { lock.withLock { cancelled } }
    var recorded: [(channel: CTAPChannel, bytes: [UInt8])] { lock.withLock { requests } }

    private static func answer(_ bytes: [UInt8], _ reply: @Sendable (ReplyBuffer) -> Void) {
        let response = ReplyBuffer(capacity: bytes.count)
        bytes.withUnsafeBytes { response.append($0) }
        reply(response)
    }
}
