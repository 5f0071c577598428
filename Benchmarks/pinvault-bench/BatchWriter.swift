import Foundation
import PinVaultTestKit

/// Writes one batch of requests to a socket from its own thread, so that the caller can
/// read replies meanwhile (neither side's socket buffer then has to hold the batch).
final class BatchWriter: @unchecked Sendable {
    private let fd: Int32
    private let batch: [UInt8]
    private let done = DispatchSemaphore(value: 0)
    /// Set by the writer thread before it signals `done`; read only after `done`.
    private var failure: (any Error)?

    init(fd: Int32, batch: [UInt8]) {
        self.fd = fd
        self.batch = batch
    }

    func start() {
        Thread { [self] in
            failure = write()
            done.signal()
        }.start()
    }

    /// Waits for the writer; throws what it failed with.
    func join() throws {
        done.wait()
        if let failure { throw failure }
    }

    private func write() -> (any Error)? {
        do {
            try batch.withUnsafeBytes { try UnixStream.write($0, to: fd) }
            return nil
        } catch {
            return error
        }
    }
}
