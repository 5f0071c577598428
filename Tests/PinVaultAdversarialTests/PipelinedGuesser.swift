import Foundation
import PinVaultTestKit

/// An online guesser: sends wrong-PIN Authenticate calls as fast as it can, pipelined
/// on a few connections (one thread writes, another reads, per connection), and
/// counts the answers by error name ("ok" for a success).
struct PipelinedGuesser {
    let socketPath: String
    let user: String
    let connections: Int

    /// Sends `total` guesses spread over the connections; returns the answers' counts.
    func guess(_ total: Int, pin: String = "999999") throws -> [String: Int] {
        let clients = try (0..<connections).map { _ in SharedClient(try VarlinkClient(socketPath: socketPath, timeoutSeconds: 60)) }
        let perConnection = (total + connections - 1) / connections
        let frame = try Self.frame(user: user, pin: pin)
        let counts = Counts()
        let group = DispatchGroup()
        for (index, shared) in clients.enumerated() {
            let calls = min(perConnection, total - index * perConnection)
            guard calls > 0 else { continue }
            DispatchQueue.global().async(group: group) {
                for _ in 0..<calls {
                    do { try shared.client.send(raw: frame) } catch { return counts.add("sendFailed") }
                }
            }
            DispatchQueue.global().async(group: group) {
                for _ in 0..<calls {
                    guard let reply = try? shared.client.receive() else { return counts.add("unanswered") }
                    counts.add(reply.errorName ?? "ok")
                }
            }
        }
        guard group.wait(timeout: .now() + 120) == .success else { throw TestKitError("guessing hung") }
        return counts.value
    }

    private static func frame(user: String, pin: String) throws -> [UInt8] {
        let message: [String: Any] = [
            "method": "io.pinvault.Vault.Authenticate",
            "parameters": ["user": user, "pin": pin, "challenge": Data("guess".utf8).base64EncodedString()],
        ]
        return [UInt8](try JSONSerialization.data(withJSONObject: message)) + [0]
    }

    /// A client shared by one writer and one reader thread: sending touches only the
    /// descriptor, receiving only the read buffer.
    private final class SharedClient: @unchecked Sendable {
        let client: VarlinkClient
        init(_ client: VarlinkClient) { self.client = client }
    }

    private final class Counts: @unchecked Sendable {
        private let lock = NSLock()
        private var counts: [String: Int] = [:]

        func add(_ name: String) {
            lock.lock()
            counts[name, default: 0] += 1
            lock.unlock()
        }

        var value: [String: Int] {
            lock.lock()
            defer { lock.unlock() }
            return counts
        }
    }
}
