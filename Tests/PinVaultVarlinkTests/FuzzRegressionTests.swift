import Foundation
import Glibc
import PinVaultCrypto
import PinVaultDoor
import PinVaultEmbedded
import PinVaultTransport
import XCTest

/// The fuzz target's seeds and findings, replayed in the ordinary test run: the corpus
/// through the `pinvault-fuzz` executable (the very function libFuzzer calls), and
/// each finding as inline bytes through `InProcessVault`, pinvaultd's request path.
final class FuzzRegressionTests: XCTestCase {
    private var directory = ""
    private let user = Peer(pid: 4242, uid: 1000, gid: 1000, groups: [1000], isAdmin: false)

    override func setUpWithError() throws {
        var template = Array("/tmp/pinvault-fuzz-test-XXXXXX".utf8CString)
        guard let made = mkdtemp(&template) else { throw POSIXError(.EIO) }
        directory = String(cString: made)
    }

    override func tearDownWithError() throws {
        try? FileManager.default.removeItem(atPath: directory)
    }

    /// What became of the frame, and the reply's text when there was one.
    private struct Exchanged: Equatable {
        let outcome: InProcessVault.Outcome
        let text: String?
    }

    private func exchange(_ vault: InProcessVault, _ text: String, peer: Peer? = nil) -> Exchanged {
        Array(text.utf8).withUnsafeBytes { frame in
            vault.exchange(frame: frame, peer: peer ?? user) { outcome, reply in
                Exchanged(outcome: outcome, text: outcome == .replied ? String(decoding: reply, as: UTF8.self) : nil)
            }
        }
    }

    private func replyText(_ exchanged: Exchanged) -> String? {
        exchanged.text
    }

    func testCorpus_replaysThroughTheFuzzTarget_withoutATrap() throws {
        try replay(corpus: "Fuzz/corpus", target: "vault", atLeast: 10)
    }

    /// The transport target's seeds: the real event loop over socketpairs, with split
    /// writes, half-closes, closes and small buffers, every reply checked.
    func testTransportCorpus_replaysThroughTheRealEventLoop_withoutATrap() throws {
        try replay(corpus: "Fuzz/corpus-transport", target: "transport", atLeast: 15)
    }

    /// The ssh-data target's seeds: what an agent is asked to sign, and near misses,
    /// through the parsers that decide what an ssh key signs.
    func testSSHDataCorpus_replaysThroughTheParsers_withoutATrap() throws {
        try replay(corpus: "Fuzz/corpus-ssh-data", target: "ssh-data", atLeast: 15)
    }

    /// The cbor target's seeds: CTAP requests and the CBOR the decoder refuses.
    func testCBORCorpus_replaysThroughTheCodec_withoutATrap() throws {
        try replay(corpus: "Fuzz/corpus-cbor", target: "cbor", atLeast: 20)
    }

    /// The ctaphid target's seeds: INIT, PING, CBOR with KEEPALIVE and CANCEL, bad
    /// sequences, timeouts, channel exhaustion, oversize lengths, through the CTAPHID device.
    func testCTAPHIDCorpus_replaysThroughTheDevice_withoutATrap() throws {
        try replay(corpus: "Fuzz/corpus-ctaphid", target: "ctaphid", atLeast: 15)
    }

    /// The ctap target's seeds: PINs set, changed and guessed, tokens, passkeys made and
    /// signed in with, credential management, raw and fuzzed messages, through the
    /// security key's dispatch over a real engine.
    func testCTAPCorpus_replaysThroughTheAuthenticator_withoutATrap() throws {
        try replay(corpus: "Fuzz/corpus-ctap", target: "ctap", atLeast: 20)
    }

    private func replay(corpus relativePath: String, target: String, atLeast minimum: Int) throws {
        let tests = URL(fileURLWithPath: CommandLine.arguments[0]).resolvingSymlinksInPath()
        let binary = tests.deletingLastPathComponent().appendingPathComponent("pinvault-fuzz").path
        XCTAssertTrue(FileManager.default.isExecutableFile(atPath: binary), "swift build makes \(binary)")
        var root = URL(fileURLWithPath: #filePath)
        for _ in 0..<3 { root.deleteLastPathComponent() }
        let corpus = root.appendingPathComponent(relativePath).path

        let process = Process()
        process.executableURL = URL(fileURLWithPath: binary)
        process.arguments = [corpus]
        process.environment = ProcessInfo.processInfo.environment.merging(["PINVAULT_FUZZ_TARGET": target]) { $1 }
        let output = Pipe()
        process.standardOutput = output
        try process.run()
        let printed = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        XCTAssertEqual(process.terminationStatus, 0, printed)
        let count = try FileManager.default.contentsOfDirectory(atPath: corpus).count
        XCTAssertGreaterThanOrEqual(count, minimum)
        XCTAssertEqual(printed, "replayed \(count) inputs\n")
    }

    func testInProcessVault_answersEveryKindOfFrame_likeTheDaemon() throws {
        let vault = try InProcessVault(stateDirectory: directory)
        XCTAssertEqual(exchange(vault, "[1]").outcome, .closed, "not a call: the connection closes")
        XCTAssertEqual(
            exchange(vault, #"{"method":"io.pinvault.Vault.Register","oneway":true,"parameters":{"user":"u","pin":"258046"}}"#).outcome,
            .noReply
        )
        let listed = replyText(exchange(vault, #"{"method":"io.pinvault.Vault.List"}"#))
        XCTAssertTrue(listed?.contains(#""user":"u""#) == true, "the oneway Register ran: \(listed ?? "no reply")")
        let authenticated = replyText(exchange(
            vault, #"{"method":"io.pinvault.Vault.Authenticate","parameters":{"user":"u","pin":"258046","challenge":"YWJj"}}"#
        ))
        XCTAssertTrue(authenticated?.contains(#""signature":"#) == true, authenticated ?? "no reply")
    }

    func testInProcessVault_virtualClock_endsAThrottle() throws {
        let vault = try InProcessVault(stateDirectory: directory)
        _ = exchange(vault, #"{"method":"io.pinvault.Vault.Register","parameters":{"user":"u","pin":"258046"}}"#)
        let wrong = #"{"method":"io.pinvault.Vault.Authenticate","parameters":{"user":"u","pin":"370591","challenge":"YWJj"}}"#
        for _ in 0..<3 { _ = exchange(vault, wrong) }
        XCTAssertTrue(replyText(exchange(vault, wrong))?.contains("LockedOut") == true, "throttled after three")
        vault.advanceClock(seconds: 5)
        XCTAssertTrue(replyText(exchange(vault, wrong))?.contains("WrongPin") == true, "the wait is over")
    }
}
