/// CTAPHID's commands: the low 7 bits of an initialisation packet's command byte (its top
/// bit marks the packet as an initialisation packet).
public enum CTAPHIDCommand: UInt8, Sendable {
    case ping = 0x01
    case msg = 0x03
    case lock = 0x04
    case initialize = 0x06
    case wink = 0x08
    case cbor = 0x10
    case cancel = 0x11
    case keepalive = 0x3B
    case error = 0x3F
}

/// CTAPHID_ERROR's codes.
public enum CTAPHIDError: UInt8, Sendable {
    /// The command is not one this authenticator implements.
    case invalidCommand = 0x01
    /// A parameter in the packet is invalid.
    case invalidParameter = 0x02
    /// The payload length is wrong for the command, or larger than a message may be.
    case invalidLength = 0x03
    /// A continuation packet out of sequence.
    case invalidSequence = 0x04
    /// The continuation packets of a message did not arrive in time.
    case messageTimeout = 0x05
    /// Another channel of this device is in a transaction.
    case channelBusy = 0x06
    /// The channel id is not one this device allocated (or is the broadcast id where a
    /// command other than INIT needs an allocated one).
    case invalidChannel = 0x0B
    /// Anything else (no memory for the message).
    case other = 0x7F
}

/// A channel id: 4 bytes, big-endian on the wire.
extension UInt32 {
    /// The broadcast channel, on which INIT asks for a channel of its own.
    public static let ctaphidBroadcast: UInt32 = 0xFFFF_FFFF
}
