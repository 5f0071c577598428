/// Why a message did not parse. The agent answers SSH_AGENT_FAILURE to it (as
/// OpenSSH's does) and the connection goes on; only a broken framing closes it.
public enum SSHAgentMessageError: Error, Equatable, Sendable {
    /// A field ran past the end of the message.
    case truncated
    /// Bytes were left after the last field.
    case trailingBytes
    /// A key blob that is not a key of PinVault's algorithms (`KeyAlgorithm+SSH`), or a
    /// malformed one.
    case unsupportedKey
    /// A name (a string OpenSSH reads as a C string) holding a NUL.
    case malformedName
    /// A certificate that is not a `…-cert-v01@openssh.com` one of such a key, or malformed.
    case unsupportedCertificate
    /// Data to sign that is neither an SSH userauth request nor an SSHSIG preimage
    /// (`SSHSignedData`).
    case notSSHData
}
