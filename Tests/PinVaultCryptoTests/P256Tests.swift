import Foundation
import XCTest

@testable import PinVaultCrypto

/// `KeyAlgorithm.p256`: the scalar's derivation from the seed (docs/FORMAT.md, known
/// answers computed with Python's hashlib and `cryptography`), ECDSA by libcrypto, the
/// DER signature read strictly, and the encodings other programs read — each checked
/// against an independent implementation (Python's `cryptography`, over OpenSSL).
final class P256Tests: XCTestCase {
    /// Seeds and what the derivation gives them: the scalar (counter 0 for both) and
    /// the SEC1 point, computed by `hashlib.blake2b` and
    /// `cryptography`'s `ec.derive_private_key`, following docs/FORMAT.md alone.
    private let knownAnswers: [(seed: String, scalar: String, point: String)] = [
        (
            "000102030405060708090a0b0c0d0e0f101112131415161718191a1b1c1d1e1f",
            "c518db88fe98fb2443a02323aa561183657d3b931125b4b76b5f479fc0ad5410",
            "04b29823b6c68cc92791e519c3c42e2ed385f7a764ad64de33a109a967886c7921"
                + "40ee39249ec71f1caeed3ef234b00e529a2c0e16ed99cca17392e74b2bd0e80e"
        ),
        (
            "9d61b19deffd5a60ba844af492ec2cc44449c5697b326919703bac031cae7f60",
            "9817c1226f1668925d656f30a777dbbae74a64133e8026dc0411aa5396d2dca2",
            "04860ec9ccdf002dbdcd5824b13767f7bedd3caf3da4a0487ed9c263004e2123b9"
                + "60e3b4426ec52ab9fd07a70ed9fea3c142a381c6dfe1dc00e55e50f424fbfa09"
        ),
    ]

    func testTheScalarAndPublicKeyOfASeed_areTheKnownAnswers() throws {
        for answer in knownAnswers {
            let seed = try secret([UInt8](hex: answer.seed))
            XCTAssertEqual(contents(try P256.scalar(seed: seed)).hex, answer.scalar)
            let pair = try SigningKeyPair(algorithm: .p256, seed: seed)
            XCTAssertEqual(pair.publicKey.hex, answer.point)
            XCTAssertEqual(contents(pair.secretKey).hex, answer.scalar)
        }
    }

    /// The rejection rule at its edges: 0 and n and above are no scalar, 1 and n − 1 are.
    func testACandidate_isAScalarExactlyFrom1ToNMinus1() {
        let n = P256.order
        var nMinus1 = n
        nMinus1[31] -= 1
        var nPlus1 = n
        nPlus1[31] += 1
        let one = [UInt8](repeating: 0, count: 31) + [1]
        func check(_ bytes: [UInt8]) -> Bool { bytes.withUnsafeBytes(P256.isScalar) }
        XCTAssertFalse(check([UInt8](repeating: 0, count: 32)), "0")
        XCTAssertTrue(check(one), "1")
        XCTAssertTrue(check(nMinus1), "n - 1")
        XCTAssertFalse(check(n), "n")
        XCTAssertFalse(check(nPlus1), "n + 1")
        XCTAssertFalse(check([UInt8](repeating: 0xff, count: 32)), "2^256 - 1")
        XCTAssertFalse(check(Array(one.dropFirst())), "31 bytes")
    }

    func testASignature_verifies_forItsMessageOnly_andIsDER() throws {
        let pair = try SigningKeyPair(algorithm: .p256, seed: KeyAlgorithm.generateSeed())
        let message = Array("a relying party's challenge".utf8)
        let signature = try message.withUnsafeBytes { try pair.sign($0) }
        XCTAssertNotNil(ECDSASignature.integers(der: signature, scalarSize: 32))
        XCTAssertLessThanOrEqual(signature.count, KeyAlgorithm.p256.maxSignatureSize)
        XCTAssertTrue(message.withUnsafeBytes { KeyAlgorithm.p256.verify(signature: signature, message: $0, publicKey: pair.publicKey) })
        let other = Array("another challenge".utf8)
        XCTAssertFalse(other.withUnsafeBytes { KeyAlgorithm.p256.verify(signature: signature, message: $0, publicKey: pair.publicKey) })
        XCTAssertFalse(message.withUnsafeBytes { KeyAlgorithm.ed25519.verify(signature: signature, message: $0, publicKey: pair.publicKey) })
    }

    /// A digest signature is ECDSA over exactly those 32 bytes: it verifies as a
    /// signature of the message whose SHA-256 they are. Ed25519 signs no digest.
    func testADigestSignature_isTheSignatureOfTheMessageItHashes() throws {
        let pair = try SigningKeyPair(algorithm: .p256, seed: KeyAlgorithm.generateSeed())
        let message = Array("SSH userauth data".utf8)
        let digest = message.withUnsafeBytes { SHA256.hash($0) }
        let signature = try digest.withUnsafeBytes { try pair.signDigest($0) }
        XCTAssertTrue(message.withUnsafeBytes { KeyAlgorithm.p256.verify(signature: signature, message: $0, publicKey: pair.publicKey) })
        XCTAssertThrowsError(try [UInt8](repeating: 1, count: 31).withUnsafeBytes { try pair.signDigest($0) })
        let ed25519 = try SigningKeyPair(algorithm: .ed25519, seed: KeyAlgorithm.generateSeed())
        XCTAssertFalse(KeyAlgorithm.ed25519.signsDigests)
        XCTAssertThrowsError(try digest.withUnsafeBytes { try ed25519.signDigest($0) })
    }

    /// Only the one encoding of a pair is read: no long lengths, no padding, no
    /// negative or zero integers, nothing after.
    func testTheDERReader_acceptsOnlyTheCanonicalEncoding() {
        let r: [UInt8] = [0x00, 0x80] + [UInt8](repeating: 1, count: 31)  // 32 bytes, top bit set: a leading 00
        let s: [UInt8] = [0x7f] + [UInt8](repeating: 2, count: 31)
        func der(_ r: [UInt8], _ s: [UInt8]) -> [UInt8] {
            let body = [0x02, UInt8(r.count)] + r + [0x02, UInt8(s.count)] + s
            return [0x30, UInt8(body.count)] + body
        }
        let good = der(r, s)
        XCTAssertEqual(ECDSASignature.integers(der: good, scalarSize: 32)?.r, r)
        XCTAssertEqual(ECDSASignature.integers(der: good, scalarSize: 32)?.s, s)
        XCTAssertNil(ECDSASignature.integers(der: good + [0], scalarSize: 32), "a byte after")
        XCTAssertNil(ECDSASignature.integers(der: der([0x00, 0x01], s), scalarSize: 32), "a needless leading zero")
        XCTAssertNil(ECDSASignature.integers(der: der([0x80], s), scalarSize: 32), "negative")
        XCTAssertNil(ECDSASignature.integers(der: der(r, [0x00]), scalarSize: 32), "zero")
        XCTAssertNil(ECDSASignature.integers(der: der([0x01] + r, s), scalarSize: 32), "34 bytes")
        var wrongTag = good
        wrongTag[0] = 0x31
        XCTAssertNil(ECDSASignature.integers(der: wrongTag, scalarSize: 32), "not a SEQUENCE")
        var longLength = good
        longLength[1] += 1
        XCTAssertNil(ECDSASignature.integers(der: longLength, scalarSize: 32), "a length past the end")
    }

    /// A P-256 seed seals and opens as an Ed25519 one does, in format 3, and its
    /// algorithm is sealed in: the same record read as Ed25519 does not open.
    func testAP256Record_opens_andNotAsAnotherAlgorithm() throws {
        let seed = try KeyAlgorithm.generateSeed()
        let pepper = try Pepper.generate()
        let pair = try SigningKeyPair(algorithm: .p256, seed: seed)
        let sealed = try SeedSealer.seal(
            seed: seed, pin: secret("493027"), pepper: pepper, purpose: .ssh, algorithm: .p256, ownerUid: 1000,
            user: "alice", keyId: KeyID(publicKey: pair.publicKey), parameters: weakParameters)
        XCTAssertEqual(sealed.header.formatVersion, 3)
        XCTAssertTrue(try SeedSealer.open(sealed, pin: secret("493027"), pepper: pepper).constantTimeEquals(seed))
        var asEd25519 = sealed
        asEd25519.header.algorithm = .ed25519
        XCTAssertThrowsError(try SeedSealer.open(asEd25519, pin: secret("493027"), pepper: pepper))
        var asFormat2 = asEd25519
        asFormat2.header.formatVersion = 2
        XCTAssertThrowsError(try SeedSealer.open(asFormat2, pin: secret("493027"), pepper: pepper))
    }

    /// Python's hashlib and `cryptography` (OpenSSL), given only the seed and
    /// docs/FORMAT.md's derivation, find the same public key; they verify PinVault's
    /// signature of a message and of a digest, and read its SPKI DER as the same key.
    /// Also checks the COSE key's coordinates.
    func testAnIndependentImplementation_derivesTheSameKey_andVerifiesItsSignatures() throws {
        var cases: [[String: String]] = []
        for index in 0..<8 {
            let seed = try KeyAlgorithm.generateSeed()
            let pair = try SigningKeyPair(algorithm: .p256, seed: seed)
            let message = Array("message \(index)".utf8)
            let signature = try message.withUnsafeBytes { try pair.sign($0) }
            let digestSignature = try message.withUnsafeBytes { SHA256.hash($0) }.withUnsafeBytes { try pair.signDigest($0) }
            let cose = KeyAlgorithm.p256.coseKey(publicKey: pair.publicKey)
            XCTAssertEqual(Array(cose[10..<42]), Array(pair.publicKey[1..<33]))
            XCTAssertEqual(Array(cose[45..<77]), Array(pair.publicKey[33..<65]))
            cases.append([
                "seed": contents(seed).hex, "point": pair.publicKey.hex, "message": message.hex,
                "signature": signature.hex, "digestSignature": digestSignature.hex,
                "spki": KeyAlgorithm.p256.subjectPublicKeyInfo(publicKey: pair.publicKey).hex,
            ])
        }
        let output = try python(Self.independentCheck, input: JSONSerialization.data(withJSONObject: cases))
        XCTAssertEqual(output, String(repeating: "ok\n", count: cases.count))
    }

    /// Ed25519's SPKI as OpenSSL reads it (RFC 8410).
    func testTheEd25519SPKI_isReadByAnIndependentImplementation() throws {
        let pair = try SigningKeyPair(algorithm: .ed25519, seed: KeyAlgorithm.generateSeed())
        let spki = KeyAlgorithm.ed25519.subjectPublicKeyInfo(publicKey: pair.publicKey)
        let script = """
            import sys
            from cryptography.hazmat.primitives import serialization
            key = serialization.load_der_public_key(bytes.fromhex(sys.stdin.read().strip()))
            print(key.public_bytes(serialization.Encoding.Raw, serialization.PublicFormat.Raw).hex())
            """
        XCTAssertEqual(try python(script, input: Data(spki.hex.utf8)), pair.publicKey.hex + "\n")
    }

    private static let independentCheck = #"""
        import hashlib, json, sys
        from cryptography.hazmat.primitives import hashes, serialization
        from cryptography.hazmat.primitives.asymmetric import ec, utils
        n = 0xFFFFFFFF00000000FFFFFFFFFFFFFFFFBCE6FAADA7179E84F3B9CAC2FC632551
        def scalar(seed):
            for counter in range(256):
                t = hashlib.blake2b(b"PinVault P-256 scalar v1" + bytes([counter]), key=seed, digest_size=32).digest()
                d = int.from_bytes(t, "big")
                if 1 <= d < n:
                    return d
            raise ValueError("no scalar")
        for case in json.load(sys.stdin):
            key = ec.derive_private_key(scalar(bytes.fromhex(case["seed"])), ec.SECP256R1()).public_key()
            point = key.public_bytes(serialization.Encoding.X962, serialization.PublicFormat.UncompressedPoint)
            assert point.hex() == case["point"], "public key"
            message = bytes.fromhex(case["message"])
            key.verify(bytes.fromhex(case["signature"]), message, ec.ECDSA(hashes.SHA256()))
            digest = hashlib.sha256(message).digest()
            key.verify(bytes.fromhex(case["digestSignature"]), digest, ec.ECDSA(utils.Prehashed(hashes.SHA256())))
            spki = serialization.load_der_public_key(bytes.fromhex(case["spki"]))
            assert spki.public_bytes(serialization.Encoding.X962, serialization.PublicFormat.UncompressedPoint) == point, "spki"
            print("ok")
        """#

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
        XCTAssertEqual(process.terminationStatus, 0, "python3 (is python3-cryptography installed?)")
        return String(decoding: output, as: UTF8.self)
    }
}
