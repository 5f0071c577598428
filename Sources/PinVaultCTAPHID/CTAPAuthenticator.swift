import Glibc
import PinVaultCrypto

/// One CTAPHID channel of one connection: what an authenticator keys its per-channel state on
/// (a pinUvAuthToken lives as long as its channel).
///
/// `uid` and `pid` are the kernel's (SO_PEERCRED on the connection that carries the channel),
/// never a claim in a report. Over the /dev/uhid bridge the pid is the bridge's.
public struct CTAPChannel: Hashable, Sendable {
    /// The connection, unique for the daemon's lifetime (never reused).
    public let connection: UInt64
    /// The CTAPHID channel id the door allocated at INIT (never 0 or the broadcast id).
    public let id: UInt32
    public let uid: uid_t
    public let pid: pid_t
    /// When the device this channel belongs to came into being — its connection was
    /// accepted — in the door's monotonic milliseconds: CTAP's "power-up", which
    /// authenticatorReset must follow closely.
    public let poweredUpAt: Int64

    public init(connection: UInt64, id: UInt32, uid: uid_t, pid: pid_t, poweredUpAt: Int64) {
        self.connection = connection
        self.id = id
        self.uid = uid
        self.pid = pid
        self.poweredUpAt = poweredUpAt
    }
}

/// What the door shows in its KEEPALIVE reports while a CBOR request is pending.
public enum CTAPKeepaliveStatus: UInt8, Sendable {
    /// STATUS_PROCESSING
    case processing = 1
    /// STATUS_UPNEEDED: the authenticator waits for the user (a prompt is showing).
    case userPresenceNeeded = 2
}

/// The authenticator behind the CTAPHID door: it answers whole CTAPHID_CBOR messages.
/// The door owns framing, channels, reassembly, timeouts, PING, WINK's framing and KEEPALIVE;
/// the authenticator owns everything inside a CBOR message.
///
/// Calls come from the door's event-loop thread and must not block it: do the work elsewhere
/// and call `reply` when done.
public protocol CTAPAuthenticator: AnyObject, Sendable {
    /// A whole CTAPHID_CBOR request: `request`'s bytes are the message, its first byte the CTAP2
    /// command code (`request.count` ≥ 1, ≤ `CTAPHID.maximumMessageSize`). The authenticator owns
    /// `request` from here on (it may carry an encrypted PIN: it is zeroed when released).
    ///
    /// `reply` must be called exactly once, from any thread, with the response: the CTAP status
    /// byte first, then the CBOR. The door frames and sends it, then zeroes the buffer. Its
    /// length must not exceed `CTAPHID.maximumMessageSize` (a longer one is answered
    /// CTAP1_ERR_OTHER instead). A reply that arrives after the channel was closed or re-INITed
    /// is dropped (zeroed, not sent). While it is pending the door sends a KEEPALIVE every
    /// 100 ms with `keepaliveStatus(channel)`.
    func cbor(_ request: SecretBytes, on channel: CTAPChannel, reply: @escaping @Sendable (ReplyBuffer) -> Void)

    /// CTAPHID_CANCEL on a channel with a CBOR request pending: answer that request, through
    /// its `reply`, with CTAP2_ERR_KEEPALIVE_CANCEL (0x2D) as soon as it can. Never called
    /// when nothing is pending.
    func cancel(_ channel: CTAPChannel)

    /// The channel is gone: its connection closed, or the client INITed it afresh (the
    /// CTAPHID resynchronisation). End what is bound to it (its pinUvAuthToken). A request
    /// still pending on it must still call its `reply` (which the door then drops).
    func channelClosed(_ channel: CTAPChannel)

    /// CTAPHID_WINK: show the user which device this is, if the authenticator can (a desktop
    /// notification, say). The door answers WINK itself at once.
    func wink(_ channel: CTAPChannel)

    /// The KEEPALIVE status for a channel with a request pending. Default: `.processing`.
    func keepaliveStatus(_ channel: CTAPChannel) -> CTAPKeepaliveStatus
}

extension CTAPAuthenticator {
    public func keepaliveStatus(_ channel: CTAPChannel) -> CTAPKeepaliveStatus { .processing }
    public func wink(_ channel: CTAPChannel) {}
}

/// CTAPHID constants an authenticator needs too.
public enum CTAPHID {
    /// A report's length, each way (a HID report without its report-id byte).
    public static let reportSize = 64
    /// The longest message: an initialisation packet's 57 bytes and 128 continuation packets'
    /// 59 each. Advertise it as GetInfo's `maxMsgSize`.
    public static let maximumMessageSize = 7609
    /// CTAP2_ERR_KEEPALIVE_CANCEL, the status of a request CTAPHID_CANCEL ended.
    public static let keepaliveCancelStatus: UInt8 = 0x2D
}
