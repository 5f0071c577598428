import PinVaultDoor
import PinVaultEmbedded
import PinVaultSSHProtocol
import PinVaultTransport

/// The ssh-agent half of an input (after `marker`): a byte stream to the agent door,
/// split by `SSHAgentFrameReader` as the transport splits it, each message answered by
/// the door over the same in-process vault (so the Varlink half can have registered
/// and unlocked first), and each reply checked to be one well-formed frame.
enum AgentCheck {
    /// Separates the Varlink calls from the agent messages in one input. As a Varlink
    /// frame it is not a call, so the Varlink half ends there in any case.
    static let marker = Array("\0ssh-agent\0".utf8)

    /// The Varlink part of `input` and the agent part (nil without the marker).
    static func split(_ input: UnsafeRawBufferPointer) -> (varlink: UnsafeRawBufferPointer, agent: UnsafeRawBufferPointer?) {
        guard input.count >= marker.count else { return (input, nil) }
        for start in 0...(input.count - marker.count) where input[start] == 0 {
            if input[start..<start + marker.count].elementsEqual(marker) {
                return (
                    UnsafeRawBufferPointer(rebasing: input[..<(start + 1)]),
                    UnsafeRawBufferPointer(rebasing: input[(start + marker.count)...])
                )
            }
        }
        return (input, nil)
    }

    static func run(_ stream: UnsafeRawBufferPointer, vault: InProcessVault, peer: Peer) {
        // The codec alone, on everything, as a message.
        _ = try? SSHAgentRequest.parse(stream)
        var reader = SSHAgentFrameReader()
        reading: while true {
            switch reader.next(in: stream) {
            case .frame(let range):
                guard range.lowerBound >= 4, range.upperBound <= stream.count, !range.isEmpty else {
                    FuzzHarness.trap("an agent frame outside the input")
                }
                vault.exchangeAgent(message: UnsafeRawBufferPointer(rebasing: stream[range]), peer: peer) { verify($0) }
            case .needMore, .badLength:
                break reading
            }
        }
    }

    /// A reply is one frame: its length says what follows, and its type is one the
    /// agent sends.
    static func verify(_ reply: UnsafeRawBufferPointer) {
        guard reply.count >= 5 else { FuzzHarness.trap("an agent reply shorter than a frame") }
        let length = Int(reply[0]) << 24 | Int(reply[1]) << 16 | Int(reply[2]) << 8 | Int(reply[3])
        guard length == reply.count - 4 else { FuzzHarness.trap("an agent reply whose length is not its size") }
        let types = [SSHAgentRequest.Number.failure, SSHAgentRequest.Number.success,
                     SSHAgentRequest.Number.identitiesAnswer, SSHAgentRequest.Number.signResponse,
                     SSHAgentRequest.Number.extensionFailure, SSHAgentRequest.Number.extensionResponse]
        guard types.contains(reply[4]) else { FuzzHarness.trap("an agent reply of type \(reply[4])") }
        if (reply[4] == SSHAgentRequest.Number.failure || reply[4] == SSHAgentRequest.Number.extensionFailure) && reply.count != 5 {
            FuzzHarness.trap("a failure with a body")
        }
    }
}
