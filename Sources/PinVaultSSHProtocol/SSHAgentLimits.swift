/// Every size the ssh-agent front door enforces, in one place (OpenSSH's
/// `AGENT_MAX_LEN` sits at the top of ssh-agent.c the same way).
public enum SSHAgentLimits {
    /// The longest message, its type byte included and the 4-byte length before it
    /// not: OpenSSH's `AGENT_MAX_LEN` (256 KiB). A longer length closes the connection
    /// before anything is allocated for it.
    public static let maxMessageBytes = 256 * 1024

    /// The bytes one frame takes at most on the wire: the length, then the message.
    public static let maxFrameBytes = 4 + maxMessageBytes
}
