import Dispatch
import FoundationEssentials
import PinVaultCrypto
import PinVaultSystem
import PinVaultProtocol

/// One Varlink connection and the serial queue its blocking I/O runs on.
///
/// Each call is one job on the queue: send the frame, zero it, wait (bounded by the
/// timeout) for exactly one reply, parse and decode it, zero it. Jobs run in the order
/// they were submitted, so calls are answered FIFO. The queue's threads are Dispatch's,
/// never the Swift concurrency cooperative pool, so a slow KDF on the daemon blocks no
/// caller's executor.
///
/// Cancelling a call's Task affects that call only. A call still queued is marked and
/// skipped when its turn comes: it throws `.cancelled` without being sent (its PINs
/// were wiped when its frame was written), and the connection goes on. The call in
/// flight (tracked under `lock` from before its frame is sent until its reply is
/// decoded) is ended by shutting the socket down, which closes the connection: it can
/// no longer be known which reply belongs to which call. A reply that was already
/// received wins over the cancellation: the call returns or throws the daemon's answer.
///
/// Any other failure of the stream itself (EOF, timeout, a malformed reply) closes the
/// connection too. An error reply leaves it open.
final class VarlinkConnection: @unchecked Sendable {
    private let socket: UnixSocket
    private let timeout: Duration
    private let queue = DispatchQueue(label: "io.pinvault.client.connection")
    /// Received bytes; used on `queue` only.
    private var input: ReplyInput
    /// Guards `callInFlight` and every call's `CallCancellation`.
    private let lock = ConditionLock()
    /// The call between sending its frame and decoding its reply, if any.
    private var callInFlight: CallCancellation?

    /// Connects to `socketPath`.
    init(socketPath: String, timeout: Duration) throws(PinVaultError) {
        self.socket = try UnixSocket(path: socketPath)
        self.timeout = timeout
        self.input = try ReplyInput()
    }

    /// Shuts the socket down now (a call in flight fails with `.connectionLost`) and
    /// closes it once the queue gets to it.
    func close() {
        socket.shutdown()
        queue.async { self.closeOnQueue() }
    }

    /// Sends `frame` (zeroing it once sent, or once the call failed or was skipped) and
    /// decodes the one reply with `decode`, which runs on the queue while the reply's
    /// bytes live.
    func exchange<T: Sendable>(
        _ frame: ReplyBuffer,
        decode: @escaping @Sendable (ParameterDecoder) throws(PinVaultError) -> T
    ) async throws(PinVaultError) -> T {
        let cancellation = CallCancellation()
        let result: Result<T, PinVaultError> = await withTaskCancellationHandler {
            await withCheckedContinuation { continuation in
                queue.async {
                    continuation.resume(returning: self.run(frame, cancellation: cancellation, decode: decode))
                }
            }
        } onCancel: {
            self.cancel(cancellation)
        }
        return try result.get()
    }

    /// The same exchange for a caller on an event loop, which must not wait: `completion`
    /// gets the result on the connection's queue. Not cancellable; the timeout bounds it.
    func exchange<T: Sendable>(
        _ frame: ReplyBuffer,
        decode: @escaping @Sendable (ParameterDecoder) throws(PinVaultError) -> T,
        completion: @escaping @Sendable (Result<T, PinVaultError>) -> Void
    ) {
        let cancellation = CallCancellation()
        queue.async { completion(self.run(frame, cancellation: cancellation, decode: decode)) }
    }

    /// Marks the call cancelled; shuts the socket down only when it is the call in
    /// flight. A queued call is skipped later; an answered one keeps its answer.
    private func cancel(_ call: CallCancellation) {
        lock.withLock {
            call.cancelled = true
            if callInFlight === call {
                call.shutSocketDown = true
                socket.shutdown()
            }
        }
    }

    /// One call, on the queue.
    private func run<T>(
        _ frame: ReplyBuffer,
        cancellation: CallCancellation,
        decode: (ParameterDecoder) throws(PinVaultError) -> T
    ) -> Result<T, PinVaultError> {
        defer { frame.zero() }
        let started = lock.withLock {
            guard !cancellation.cancelled else { return false }
            callInFlight = cancellation
            return true
        }
        // Cancelled while queued: never sent, and the stream is untouched.
        guard started else { return .failure(.cancelled) }
        let result = send(frame, decode: decode)
        let shutDown = lock.withLock {
            callInFlight = nil
            return cancellation.shutSocketDown
        }
        switch result {
        case .success:
            // The answer arrived before the shutdown took effect; later calls cannot
            // use the stream any more.
            if shutDown { closeOnQueue() }
            return result
        case .failure(let error):
            // Only an answered call leaves the stream in a known state.
            if error.closesConnection || shutDown { closeOnQueue() }
            // A transport failure after the shutdown is the cancellation's doing; an
            // answer of the daemon (.wrongPin, .credentialBlocked…) is reported as is.
            return .failure(shutDown && error.closesConnection ? .cancelled : error)
        }
    }

    /// Sends the frame, zeroes it, and waits for the reply.
    private func send<T>(
        _ frame: ReplyBuffer,
        decode: (ParameterDecoder) throws(PinVaultError) -> T
    ) -> Result<T, PinVaultError> {
        do throws(PinVaultError) {
            let deadline = ContinuousClock.now + timeout
            do {
                try frame.withUnsafeBytes { (bytes) throws(UnixSocket.Failure) in
                    try socket.send(bytes, deadline: deadline)
                }
            } catch {
                throw error == .timedOut ? .timedOut : .connectionLost
            }
            frame.zero()
            return .success(try receiveReply(deadline: deadline, decode: decode))
        } catch {
            return .failure(error)
        }
    }

    /// Waits for one reply frame and turns it into the call's result or error.
    private func receiveReply<T>(
        deadline: ContinuousClock.Instant,
        decode: (ParameterDecoder) throws(PinVaultError) -> T
    ) throws(PinVaultError) -> T {
        while true {
            if let range = try input.nextFrame() {
                let outcome = input.buffer.withUnsafeBytes { bytes in
                    Self.interpret(UnsafeRawBufferPointer(rebasing: bytes[range]), decode: decode)
                }
                guard input.discardFrames() == 0 else {
                    throw .protocolError("the daemon sent more than one reply to one call")
                }
                return try outcome.get()
            }
            try input.receive(from: socket, deadline: deadline)
        }
    }

    /// A reply's result, or the error it names.
    static func interpret<T>(
        _ frame: UnsafeRawBufferPointer,
        decode: (ParameterDecoder) throws(PinVaultError) -> T
    ) -> Result<T, PinVaultError> {
        let reply: VarlinkReplyMessage
        do {
            reply = try VarlinkReplyMessage.parse(frame)
        } catch {
            return .failure(.protocolError("the reply is not a Varlink reply"))
        }
        if let name = reply.error {
            return .failure(PinVaultError(replyError: name, parameters: reply.parameters))
        }
        guard !reply.continues else {
            return .failure(.protocolError("the daemon announced more replies to one call"))
        }
        do throws(PinVaultError) {
            return .success(try decode(reply.parameters))
        } catch {
            return .failure(error)
        }
    }

    /// Closes the socket and zeroes what was received.
    private func closeOnQueue() {
        socket.close()
        input.wipe()
    }
}

extension PinVaultError {
    /// Whether the error leaves the stream in an unknown state, so that the connection
    /// must be closed: every transport and protocol error; not the daemon's answers.
    var closesConnection: Bool {
        switch code {
        case .connectionLost, .timedOut, .cancelled, .protocolError: true
        default: false
        }
    }
}
