import PinVaultSSHProtocol
import PinVaultDoor

/// The ssh-agent framing for the transport: a 4-byte big-endian length before each
/// message, at most `SSHAgentLimits.maxMessageBytes` (`SSHAgentFrameReader`). A bad
/// length closes that connection only.
public struct AgentFraming: Framing {
    private var reader = SSHAgentFrameReader()

    public init() {}

    public var maxMessageBytes: Int { reader.maxFrameBytes }

    public mutating func next(in received: UnsafeRawBufferPointer) -> FrameEvent {
        switch reader.next(in: received) {
        case .needMore: .needMore
        case .frame(let range): .frame(range)
        case .badLength(let length):
            .violation(length == 0 ? "an empty ssh-agent message" : "an ssh-agent message longer than AGENT_MAX_LEN")
        }
    }

    public mutating func compact(_ buffer: UnsafeMutableRawBufferPointer, filled: Int) -> Int {
        reader.compact(buffer, filled: filled)
    }
}
