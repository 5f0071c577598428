import PinVaultProtocol
import PinVaultDoor

/// Varlink's framing for the transport: a NUL after each message
/// (`VarlinkFrameReader`), at most `server.max_message_bytes` with its NUL.
struct VarlinkFraming: Framing {
    private var reader: VarlinkFrameReader

    init(maxMessageBytes: Int) {
        reader = VarlinkFrameReader(maxMessageBytes: maxMessageBytes)
    }

    var maxMessageBytes: Int { reader.maxMessageBytes }

    mutating func next(in received: UnsafeRawBufferPointer) -> FrameEvent {
        switch reader.next(in: received) {
        case .needMore: .needMore
        case .frame(let range): .frame(range)
        case .tooLarge: .violation("no NUL within server.max_message_bytes")
        }
    }

    mutating func compact(_ buffer: UnsafeMutableRawBufferPointer, filled: Int) -> Int {
        reader.compact(buffer, filled: filled)
    }
}
