import Foundation
import PinVaultClient
import PinVaultTestKit
import XCTest

/// A test case that drives a real pinvaultd through `PinVaultClient`. Each test starts
/// the daemon with the configuration it needs; tear-down stops it with SIGTERM and
/// insists on exit status 0.
class ClientTestCase: XCTestCase {
    var daemon: TestDaemon!
    var client: PinVaultClient!

    /// A PIN the test policy accepts, another, and one that is wrong for both.
    let goodPin = "258046"
    let otherPin = "370591"
    let wrongPin = "999999"

    /// Starts a daemon with `overrides` over `TestDaemon.testConfiguration` and connects.
    func startDaemon(_ overrides: [String: [String: String]] = [:], removing: [String: [String]] = [:]) throws {
        daemon = try TestDaemon(overrides: overrides, removing: removing)
        try daemon.start()
        client = try PinVaultClient(socketPath: daemon.socketPath, timeout: .seconds(20))
    }

    override func tearDownWithError() throws {
        client?.close()
        client = nil
        if let daemon, daemon.process != nil {
            XCTAssertEqual(try daemon.stop(), 0, "pinvaultd did not exit cleanly:\n\(daemon.log)")
        }
        daemon = nil
    }

    /// Registers `user` with `goodPin` and returns the credential.
    @discardableResult
    func register(_ user: String, label: String? = nil) async throws -> Credential {
        try await client.register(user: user, pin: PIN(goodPin), label: label)
    }
}

/// What `body` threw, or nil when it returned. The client's methods throw only
/// `PinVaultError` (typed throws); anything else fails the test.
func thrownError<T>(
    file: StaticString = #filePath, line: UInt = #line,
    _ body: () async throws -> T
) async -> PinVaultError? {
    do {
        _ = try await body()
        return nil
    } catch let error as PinVaultError {
        return error
    } catch {
        XCTFail("not a PinVaultError: \(error)", file: file, line: line)
        return nil
    }
}

/// Asserts that `body` throws exactly `expected`.
func XCTAssertThrowsPinVaultError<T>(
    _ expected: PinVaultError,
    file: StaticString = #filePath, line: UInt = #line,
    _ body: () async throws -> T
) async {
    let error = await thrownError(file: file, line: line, body)
    XCTAssertEqual(error, expected, file: file, line: line)
}

/// The credential's public key and challenge, verified by Python's `cryptography`.
func verifiedIndependently(_ authentication: Authentication, challenge: [UInt8]) throws -> Bool {
    try IndependentEd25519.verify(
        publicKey: Data(authentication.publicKey),
        signature: Data(authentication.signature),
        message: Data(challenge)
    )
}
