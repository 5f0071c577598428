import Foundation
import XCTest

@testable import PinVaultCrypto

/// CTAP 2.1's PIN/UV auth protocols one and two against an independent implementation
/// (Python's `cryptography`, written here from the specification): a platform's
/// key agreement, its encrypted PIN and its pinUvAuthParam are read as CTAP says.
final class PinUvAuthProtocolTests: XCTestCase {
    private static let platform = #"""
        import hashlib, hmac, json, os, sys
        from cryptography.hazmat.primitives import hashes, serialization
        from cryptography.hazmat.primitives.asymmetric import ec
        from cryptography.hazmat.primitives.ciphers import Cipher, algorithms, modes
        from cryptography.hazmat.primitives.kdf.hkdf import HKDF
        authenticator = ec.EllipticCurvePublicKey.from_encoded_point(ec.SECP256R1(), bytes.fromhex(sys.stdin.read().strip()))
        key = ec.generate_private_key(ec.SECP256R1())
        z = key.exchange(ec.ECDH(), authenticator)
        def hkdf(info):
            return HKDF(hashes.SHA256(), 32, bytes(32), info).derive(z)
        pin = b"1234".ljust(64, b"\0")
        out = {"point": key.public_key().public_bytes(serialization.Encoding.X962,
                                                       serialization.PublicFormat.UncompressedPoint).hex()}
        for protocol in (1, 2):
            if protocol == 1:
                hmac_key = aes_key = hashlib.sha256(z).digest()
                iv = bytes(16)
            else:
                hmac_key, aes_key, iv = hkdf(b"CTAP2 HMAC key"), hkdf(b"CTAP2 AES key"), os.urandom(16)
            encryptor = Cipher(algorithms.AES(aes_key), modes.CBC(iv)).encryptor()
            enc = encryptor.update(pin) + encryptor.finalize()
            if protocol == 2:
                enc = iv + enc
            tag = hmac.new(hmac_key, enc, hashlib.sha256).digest()
            out[str(protocol)] = {"newPinEnc": enc.hex(), "pinUvAuthParam": (tag[:16] if protocol == 1 else tag).hex()}
        print(json.dumps(out))
        """#

    private func hex(_ text: String) -> [UInt8] { Array(hex: text) }

    func testAPlatformsEncryptedPinAndParam_areReadAsCTAPSays() throws {
        let agreement = try KeyAgreementKey()
        let output = try python(Self.platform, input: Data(agreement.publicKey.hex.utf8))
        let reply = try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(output.utf8)) as? [String: Any])
        let point = hex(try XCTUnwrap(reply["point"] as? String))
        for pinProtocol in PinUvAuthProtocol.allCases {
            let fields = try XCTUnwrap(reply[String(pinProtocol.rawValue)] as? [String: String])
            let encrypted = hex(try XCTUnwrap(fields["newPinEnc"]))
            let param = hex(try XCTUnwrap(fields["pinUvAuthParam"]))
            let shared = try pinProtocol.sharedSecret(agreement, platformKey: point)
            XCTAssertTrue(pinProtocol.verify(key: shared, message: encrypted, signature: param), "\(pinProtocol)")
            var forged = param
            forged[0] ^= 1
            XCTAssertFalse(pinProtocol.verify(key: shared, message: encrypted, signature: forged))
            let pin = try pinProtocol.decrypt(sharedSecret: shared, encrypted)
            XCTAssertEqual(contents(pin), Array("1234".utf8) + [UInt8](repeating: 0, count: 60))
            // A token encrypted back decrypts to itself.
            let token = try secret(Array(RandomBytes.make(count: 32)))
            let sent = try pinProtocol.encrypt(sharedSecret: shared, token)
            XCTAssertEqual(sent.count, pinProtocol == .one ? 32 : 48)
            XCTAssertEqual(contents(try pinProtocol.decrypt(sharedSecret: shared, sent)), contents(token))
        }
    }

    func testAPointOffTheCurve_orOfTheWrongShape_isRefused() throws {
        let agreement = try KeyAgreementKey()
        var offCurve = agreement.publicKey
        offCurve[64] ^= 1
        for point in [offCurve, [4] + [UInt8](repeating: 0, count: 64), Array(agreement.publicKey.prefix(33)), []] {
            for pinProtocol in PinUvAuthProtocol.allCases {
                XCTAssertThrowsError(try pinProtocol.sharedSecret(agreement, platformKey: point))
            }
        }
        let shared = try PinUvAuthProtocol.two.sharedSecret(agreement, platformKey: try KeyAgreementKey().publicKey)
        for ciphertext in [[], [UInt8](repeating: 0, count: 16), [UInt8](repeating: 0, count: 33)] {
            XCTAssertThrowsError(try PinUvAuthProtocol.two.decrypt(sharedSecret: shared, ciphertext))
        }
    }

    private func python(_ script: String, input: Data) throws -> String {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/python3")
        process.arguments = ["-c", script]
        let stdin = Pipe(), stdout = Pipe()
        process.standardInput = stdin
        process.standardOutput = stdout
        try process.run()
        stdin.fileHandleForWriting.write(input)
        try stdin.fileHandleForWriting.close()
        let output = stdout.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        XCTAssertEqual(process.terminationStatus, 0)
        return String(decoding: output, as: UTF8.self)
    }
}
