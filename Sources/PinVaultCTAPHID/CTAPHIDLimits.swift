/// What one CTAPHID connection (one virtual device) may hold and how long it waits.
public struct CTAPHIDLimits: Sendable {
    /// The longest message this device takes or sends (≤ `CTAPHID.maximumMessageSize`).
    public var maxMessageSize: Int
    /// Channels one connection holds at most: an INIT past it reuses the channel used least
    /// recently (its state ends, as a re-INIT's would), so that INITs in a loop never grow
    /// memory.
    public var maxChannels: Int
    /// How long the continuation packets of a message may take, from the initialisation
    /// packet (milliseconds): then the transaction ends with ERR_MSG_TIMEOUT.
    public var messageTimeoutMilliseconds: Int64
    /// How often a KEEPALIVE goes out while a CBOR request is pending (milliseconds).
    public var keepaliveMilliseconds: Int64

    public init(
        maxMessageSize: Int = CTAPHID.maximumMessageSize, maxChannels: Int = 16,
        messageTimeoutMilliseconds: Int64 = 3000, keepaliveMilliseconds: Int64 = 100
    ) {
        self.maxMessageSize = min(max(maxMessageSize, 1), CTAPHID.maximumMessageSize)
        self.maxChannels = max(maxChannels, 2)
        self.messageTimeoutMilliseconds = messageTimeoutMilliseconds
        self.keepaliveMilliseconds = keepaliveMilliseconds
    }
}
