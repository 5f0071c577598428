import XCTest

@testable import PinVaultCrypto

/// Argon2id v1.3 checked against libsodium's own `crypto_pwhash` vectors: inputs from
/// test/default/pwhash_argon2id.c and outputs from pwhash_argon2id.exp, both as of
/// libsodium commit 58441ad2 (later commits changed tv2's memlimit together with its
/// outputs). The C test hex-decodes a 32-byte salt into a 16-byte buffer, so only the
/// salt's first 16 bytes count; they are what is listed here.
final class PinKDFTests: XCTestCase {
    private struct Vector {
        let name: String
        let password: String
        let salt: String
        let opslimit: UInt64
        let memlimit: UInt64
        let output: String
    }

    private static let password0 =
        "a347ae92bce9f80f6f595a4480fc9c2fe7e7d7148d371e9487d75f5c23008ffae0"
        + "65577a928febd9b1973a5a95073acdbeb6a030cfc0d79caa2dc5cd011cef02c08d"
        + "a232d76d52dfbca38ca8dcbd665b17d1665f7cf5fe59772ec909733b24de97d6f5"
        + "8d220b20c60d7c07ec1fd93c52c31020300c6c1facd77937a597c7a6"

    private let vectors = [
        Vector(
            name: "tv[0]", password: password0, salt: "5541fbc995d5c197ba290346d2c559de",
            opslimit: 5, memlimit: 7_256_678,
            output: "18acec5d6507739f203d1f5d9f1d862f7c2cdac4f19d2bdff64487e60d969e3ced615337b9eec6"
                + "ac4461c6ca07f0939741e57c24d0005c7ea171a0ee1e7348249d135b38f222e4dad7b9a033ed83f5"
                + "ca27277393e316582033c74affe2566a2bea47f91f0fd9fe49ece7e1f79f3ad6e9b23e0277c8ecc4"
                + "b313225748dd2a80f5679534a0700e246a79a49b3f74eb89ec6205fe1eeb941c73b1fcf1"
        ),
        Vector(
            name: "tv[4]",
            password: "4a857e2ee8aa9b6056f2424e84d24a72473378906ee04a46cb05311502d5250b82"
                + "ad86b83c8f20a23dbb74f6da60b0b6ecffd67134d45946ac8ebfb3064294bc097d"
                + "43ced68642bfb8bbbdd0f50b30118f5e",
            salt: "39d82eef32010b8b79cc5ba88ed539fb",
            opslimit: 3, memlimit: 1_432_947,
            output: "08d8cd330c57e1b4643241d05bb468ba4ee4e932cd0858816be9ef15360b27bbd06a87130ee922"
                + "22be267a29b81f5ae8fe8613324cfc4832dc49387fd0602f1c57b4d0f3855db94fb7e12eb05f9a48"
                + "4aed4a4307abf586cd3d55c809bc081541e00b682772fb2066504ff935b8ebc551a2083882f874bc"
                + "0fae68e56848ae34c91097c3bf0cca8e75c0797eef3efde3f75e005815018db3cf7c109a812264c4"
                + "de69dcb22322dbbcfa447f5b00ecd1b04a7be1569c8e556adb7bba48adf81d"
        ),
        Vector(
            name: "tv[6]",
            password: "b540beb016a5366524d4605156493f9874514a5aa58818cd0c6dfffaa9e90205f17b",
            salt: "44071f6d181561670bda728d43fb79b4",
            opslimit: 1, memlimit: 1_631_659,
            output: "7fb72409b0987f8190c3729710e98c3f80c5a8727d425fdcde7f3644d467fe973f5b5fee683bd3"
                + "fce812cb9ae5e9921a2d06c2f1905e4e839692f2b934b682f11a2fe2b90482ea5dd234863516dba6"
                + "f52dc0702d324ec77d860c2e181f84472bd7104fedce071ffa93c5309494ad51623d214447a7b2b1"
                + "462dc7d5d55a1f6fd5b54ce024118d86f0c6489d16545aaa87b6689dad9f2fb47fda9894f8e12b87"
                + "d978b483ccd4cc5fd9595cdc7a818452f915ce2f7df95ec12b1c72e3788d473441d884f9748eb147"
                + "03c21b45d82fd667b85f5b2d98c13303b3fe76285531a826b6fc0fe8e3dddecf"
        ),
        Vector(
            name: "tv2[0]", password: password0, salt: "5541fbc995d5c197ba290346d2c559de",
            opslimit: 4, memlimit: 1_397_645,
            output: "2d232f9dc4de96628b2a4c2b39ceb6a813011fb74a3ba1da096761fabe08f563bd91366aba5c5e"
                + "35aecd98643cabc16ce560dca261a963230a1fa2af52f2413a57a827c6ee13bcec0c123d195914a5"
                + "5700ccb5756196a86fb9cb4aeacccc0e6dd850f4386b705aaae147ea347543b7fbe24553d9da41f1"
                + "b335b6e9980cdb966cf7b48520eb42a7269380c885dbefbccf447851fcacbe1753a5b9e1"
        ),
        Vector(
            name: "tv2[1]", password: password0, salt: "5541fbc995d5c197ba290346d2c559de",
            opslimit: 3, memlimit: 1_397_645,
            output: "34b207147fb7ef83e1ca1a97e30aa6e08ea9b6b1048c59c9c13050dff33e76ce3c440d7f018f81"
                + "7e6b8593e78f339ba633b9d7ec3519b5eafbcc4bc2d20b5136bbc7e5b7e92ff37d024bbbecf5738f"
                + "718ab22c8adcdb82ceffc233b8ad61f91850abdfe8bb119775d9c4243ec1ac761dfbd132489228df"
                + "eab5268c7f0ddc29f56b957d1b76c874cdd77e16139e0df9b847248fd782c9a1147b8480"
        ),
    ]

    func testDerive_libsodiumArgon2idVectors_matchByteForByte() throws {
        for vector in vectors {
            let expected = [UInt8](hex: vector.output)
            let output = try PinKDF.derive(
                outputLength: expected.count,
                password: secret([UInt8](hex: vector.password)),
                salt: [UInt8](hex: vector.salt),
                parameters: KDFParameters(opslimit: vector.opslimit, memlimit: vector.memlimit)
            )
            XCTAssertEqual(contents(output).hex, vector.output, vector.name)
        }
    }

    func testDerive_withOutputShorterThan16Bytes_throwsInvalidLength() throws {
        // libsodium's tv[3] asks for 5 bytes and is expected to fail.
        let password = try secret("password")
        assertThrows(.invalidLength("output")) {
            try PinKDF.derive(
                outputLength: 5, password: password, salt: [UInt8](repeating: 0, count: 16),
                parameters: weakParameters
            )
        }
    }

    func testDeriveKey_gives32BytesThatDependOnPinSaltAndParameters() throws {
        let salt = [UInt8](repeating: 1, count: 16)
        let key = try PinKDF.deriveKey(pin: secret("482916"), salt: salt, parameters: weakParameters)
        let again = try PinKDF.deriveKey(pin: secret("482916"), salt: salt, parameters: weakParameters)
        let otherPin = try PinKDF.deriveKey(pin: secret("482917"), salt: salt, parameters: weakParameters)
        var otherSaltBytes = salt
        otherSaltBytes[15] ^= 1
        let otherSalt = try PinKDF.deriveKey(pin: secret("482916"), salt: otherSaltBytes, parameters: weakParameters)
        let otherCost = try PinKDF.deriveKey(
            pin: secret("482916"), salt: salt, parameters: KDFParameters(opslimit: 2, memlimit: 8192)
        )

        XCTAssertEqual(key.count, PinKDF.keySize)
        XCTAssertTrue(key.constantTimeEquals(again))
        XCTAssertFalse(key.constantTimeEquals(otherPin))
        XCTAssertFalse(key.constantTimeEquals(otherSalt))
        XCTAssertFalse(key.constantTimeEquals(otherCost))
    }

    func testDeriveKey_withEmptyPin_stillDerives() throws {
        let key = try PinKDF.deriveKey(
            pin: SecretBytes(capacity: 0), salt: [UInt8](repeating: 0, count: 16), parameters: weakParameters
        )
        XCTAssertEqual(key.count, 32)
    }

    func testDeriveKey_withSaltNot16Bytes_throwsInvalidLength() throws {
        let pin = try secret("482916")
        for count in [0, 15, 17, 32] {
            assertThrows(.invalidLength("salt")) {
                try PinKDF.deriveKey(
                    pin: pin, salt: [UInt8](repeating: 0, count: count), parameters: weakParameters
                )
            }
        }
    }

    func testDeriveKey_withParametersLibsodiumRefuses_throwsInvalidKDFParameters() throws {
        let pin = try secret("482916")
        let salt = [UInt8](repeating: 0, count: 16)
        for parameters in [
            KDFParameters(opslimit: 0, memlimit: 8192),
            KDFParameters(opslimit: 1, memlimit: 8191),
            KDFParameters(opslimit: 1, memlimit: 0),
            KDFParameters(opslimit: UInt64(UInt32.max) + 1, memlimit: 8192),
            KDFParameters(opslimit: 1, memlimit: UInt64.max),
        ] {
            assertThrows(.invalidKDFParameters) {
                try PinKDF.deriveKey(pin: pin, salt: salt, parameters: parameters)
            }
        }
    }

    func testIsSupported_followsLibsodiumArgon2idBounds() {
        let memlimitMax: UInt64 = 4_398_046_510_080  // crypto_pwhash_argon2id_MEMLIMIT_MAX on 64-bit
        XCTAssertTrue(PinKDF.isSupported(KDFParameters(opslimit: 1, memlimit: 8192)))
        XCTAssertTrue(PinKDF.isSupported(KDFParameters.default))
        XCTAssertTrue(PinKDF.isSupported(KDFParameters(opslimit: UInt64(UInt32.max), memlimit: memlimitMax)))
        XCTAssertFalse(PinKDF.isSupported(KDFParameters(opslimit: 0, memlimit: 8192)))
        XCTAssertFalse(PinKDF.isSupported(KDFParameters(opslimit: 1, memlimit: 8191)))
        XCTAssertFalse(PinKDF.isSupported(KDFParameters(opslimit: UInt64(UInt32.max) + 1, memlimit: 8192)))
        XCTAssertFalse(PinKDF.isSupported(KDFParameters(opslimit: 1, memlimit: memlimitMax + 1)))
    }

    func testDeriveKey_whenArgon2idCannotGetItsMemory_throwsOutOfMemory() throws {
        // 4 TiB is within libsodium's bounds but beyond this machine; the kernel refuses
        // the mapping only under heuristic (0) or strict (2) overcommit.
        let overcommit = try? String(contentsOfFile: "/proc/sys/vm/overcommit_memory", encoding: .utf8)
        guard let mode = overcommit?.trimmingCharacters(in: .whitespacesAndNewlines), mode != "1" else {
            throw XCTSkip("vm.overcommit_memory=1 would grant the mapping")
        }
        let huge = KDFParameters(opslimit: 1, memlimit: 4_398_046_510_080)
        let pin = try secret("482916")
        assertThrows(.outOfMemory) {
            try PinKDF.deriveKey(pin: pin, salt: [UInt8](repeating: 0, count: 16), parameters: huge)
        }
    }
}
