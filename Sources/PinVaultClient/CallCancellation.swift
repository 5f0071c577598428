/// One call's cancellation state. Both flags are read and written only under the lock
/// of the `VarlinkConnection` that runs the call, which also knows whether the call is
/// the one in flight.
final class CallCancellation: @unchecked Sendable {
    /// The calling Task was cancelled.
    var cancelled = false
    /// The cancellation found this call in flight and shut the socket down.
    var shutSocketDown = false
}
