import Foundation
import Logging
import PinVaultCTAPHID
import PinVaultCore
import PinVaultCrypto
import PinVaultEngine
import PinVaultStore
import XCTest

@testable import PinVaultWebAuthn

/// Yubico's python-fido2 as the platform (its Ctap2 and ClientPin) and its Fido2Server as
/// the relying party, against the authenticator in process: CTAPHID_CBOR messages cross a
/// pipe (Python/fido2_platform.py), not a socket — the CTAPHID door is ctapdoor's. An
/// ES256-only registration, a wrong PIN counted and shown by getPINRetries, a
/// discoverable sign-in, another rp id refused; every signature verified by Fido2Server.
final class AuthenticatorInteropTests: XCTestCase {
    func testPythonFido2_registersAndSignsIn_andFido2ServerVerifiesBoth() throws {
        guard let python = Self.pythonWithFido2() else {
            throw XCTSkip("no Python with the fido2 package: run `make venv` (it installs fido2 into .venv) or set PINVAULT_FIDO2_PYTHON")
        }
        var template = Array("/tmp/pinvault-ctap-interop-XXXXXX".utf8CString)
        guard let made = mkdtemp(&template) else { throw POSIXError(.EIO) }
        let directory = String(cString: made)
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let store = try VaultStore(path: directory + "/vault.sqlite")
        defer { store.close() }
        let engine = try VaultEngine(
            settings: VaultEngine.Settings(
                policy: PinPolicy(), lockout: LockoutPolicy(throttleAfter: 5, maxAttempts: 8, onMaxAttempts: .block),
                kdf: KDFParameters(opslimit: 1, memlimit: 8192),
                unregisterExpirySeconds: 300, maxCredentialsPerUser: 8, maxCredentialsPerUid: 64,
                kdfThreads: 1, kdfQueueMax: 8, kdfQueuePerUid: 8, storeQueueMax: 8, storeQueuePerUid: 8,
                sessionMaxTtlSeconds: 3600, sessionsPerUid: 16),
            store: store, pepper: try Pepper.generate(), logger: Logger(label: "test") { _ in SwiftLogNoOpLogHandler() })
        defer { engine.shutdown() }
        let authenticator = try EngineAuthenticator(engine: engine)
        let channel = CTAPChannel(connection: 1, id: 7, uid: 1000, pid: 1, poweredUpAt: 0)

        let process = Process()
        process.executableURL = URL(fileURLWithPath: python)
        process.arguments = [URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("Python/fido2_platform.py").path]
        let toPython = Pipe(), fromPython = Pipe(), errors = Pipe()
        process.standardInput = toPython
        process.standardOutput = fromPython
        process.standardError = errors
        try process.run()
        var messages = 0
        while let length = Self.readLength(fromPython.fileHandleForReading), length > 0 {
            let message = fromPython.fileHandleForReading.readData(ofLength: length)
            let request = try [UInt8](message).withUnsafeBytes { try SecretBytes(copying: $0) }
            let done = DispatchSemaphore(value: 0)
            let reply = Reply()
            authenticator.cbor(request, on: channel) { buffer in
                reply.bytes = buffer.copyBytes()
                done.signal()
            }
            done.wait()
            let bytes = reply.bytes
            toPython.fileHandleForWriting.write(Data(withUnsafeBytes(of: UInt32(bytes.count).bigEndian, Array.init) + bytes))
            messages += 1
        }
        let stderr = String(decoding: errors.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        XCTAssertEqual(process.terminationStatus, 0, stderr)
        XCTAssertTrue(stderr.hasSuffix("ok\n"), stderr)
        XCTAssertGreaterThan(messages, 10)
        // The wrong PIN was counted durably: in the store, cleared by the right PIN after it.
        let record = try XCTUnwrap(try store.read { try $0.credentials(ownerUid: 1000, user: nil) }.first)
        XCTAssertEqual(record.purpose, .webauthn)
        XCTAssertEqual(record.wrongPinsSinceSuccess, 0)
    }

    private final class Reply: @unchecked Sendable { var bytes: [UInt8] = [] }

    private static func readLength(_ handle: FileHandle) -> Int? {
        let data = handle.readData(ofLength: 4)
        guard data.count == 4 else { return nil }
        return data.reduce(0) { $0 << 8 | Int($1) }
    }

    /// PINVAULT_FIDO2_PYTHON, else the repository's .venv: the first Python that imports fido2.
    static func pythonWithFido2() -> String? {
        var root = URL(fileURLWithPath: #filePath)
        for _ in 0..<3 { root.deleteLastPathComponent() }
        let candidates: [String?] = [ProcessInfo.processInfo.environment["PINVAULT_FIDO2_PYTHON"], root.appendingPathComponent(".venv/bin/python").path]
        for case let candidate? in candidates where FileManager.default.isExecutableFile(atPath: candidate) {
            let check = Process()
            check.executableURL = URL(fileURLWithPath: candidate)
            check.arguments = ["-c", "import fido2.server"]
            check.standardError = FileHandle.nullDevice
            guard (try? check.run()) != nil else { continue }
            check.waitUntilExit()
            if check.terminationStatus == 0 { return candidate }
        }
        return nil
    }
}
