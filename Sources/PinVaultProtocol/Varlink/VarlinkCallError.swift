/// Why a frame is not an acceptable Varlink call.
public enum VarlinkCallError: Error, Equatable, Sendable {
    /// Not a JSON object, or no string `method`: the peer does not speak Varlink, and
    /// the daemon closes the connection without a reply.
    case protocolViolation
    /// A call-level field is malformed (`method` breaks the name grammar; `parameters`
    /// is not an object; `oneway`, `more` or `upgrade` is not a boolean). Answered with
    /// `org.varlink.service.InvalidParameter(parameter)` naming that field.
    /// `oneway` is the call's own flag (false when that flag is itself the bad
    /// field), so that a oneway call gets no reply even for this error.
    case invalidField(String, oneway: Bool)
}
