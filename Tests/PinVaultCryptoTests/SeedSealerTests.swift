import XCTest

@testable import PinVaultCrypto

/// Sealing and opening with weak Argon2id parameters, so each case runs in milliseconds.
final class SeedSealerTests: XCTestCase {
    private var seed: SecretBytes!
    private var pepper: Pepper!
    private var keyId: KeyID!

    override func setUpWithError() throws {
        seed = try KeyAlgorithm.generateSeed()
        pepper = try Pepper.generate()
        keyId = try KeyID(publicKey: SigningKeyPair(algorithm: .ed25519, seed: seed).publicKey)
    }

    private func seal(
        pin: String = "493027",
        purpose: KeyPurpose = .authenticate,
        ownerUid: UInt32 = 1000,
        user: String = "alice@example.com",
        parameters: KDFParameters = weakParameters
    ) throws -> SealedSeed {
        try SeedSealer.seal(
            seed: seed, pin: secret(pin), pepper: pepper, purpose: purpose, algorithm: .ed25519, ownerUid: ownerUid, user: user,
            keyId: keyId, parameters: parameters
        )
    }

    private func assertDoesNotOpen(
        _ sealed: SealedSeed,
        pin: String = "493027",
        pepper: Pepper? = nil,
        _ message: String,
        line: UInt = #line
    ) throws {
        let pinBytes = try secret(pin)
        let pepper = pepper ?? self.pepper!
        assertThrows(.openFailed, line: line) { try SeedSealer.open(sealed, pin: pinBytes, pepper: pepper) }
    }

    // MARK: Round trip

    func testOpen_withThePinAndPepperItWasSealedWith_returnsTheSeed() throws {
        let sealed = try seal()
        let opened = try SeedSealer.open(sealed, pin: secret("493027"), pepper: pepper)
        XCTAssertTrue(opened.constantTimeEquals(seed))
    }

    func testSeal_recordsTheHeaderFieldsAndSizes() throws {
        let sealed = try seal(ownerUid: 1234, user: "bob")
        XCTAssertEqual(sealed.header.formatVersion, RecordHeader.currentFormatVersion)
        XCTAssertEqual(sealed.header.ownerUid, 1234)
        XCTAssertEqual(sealed.header.user, "bob")
        XCTAssertEqual(sealed.header.keyId, keyId)
        XCTAssertEqual(sealed.header.kdf, weakParameters)
        XCTAssertEqual(sealed.header.salt.count, 16)
        XCTAssertEqual(sealed.nonce.count, 24)
        XCTAssertEqual(sealed.ciphertext.count, 48)
    }

    func testSeal_doesNotStoreTheSeedInTheClear() throws {
        let sealed = try seal()
        let seedBytes = contents(seed)
        XCTAssertNotEqual(Array(sealed.ciphertext.prefix(32)), seedBytes)
        XCTAssertNotEqual(Array(sealed.ciphertext.suffix(32)), seedBytes)
    }

    // MARK: Wrong secrets

    func testOpen_withWrongPin_fails() throws {
        try assertDoesNotOpen(seal(), pin: "493028", "wrong PIN")
        try assertDoesNotOpen(seal(), pin: "", "empty PIN")
    }

    func testOpen_withWrongPepper_fails() throws {
        try assertDoesNotOpen(seal(), pepper: Pepper.generate(), "wrong pepper")
    }

    func testOpen_withAWipedPepper_throwsInvalidLengthNotOpenFailed() throws {
        let sealed = try seal()
        let wiped = try Pepper.generate()
        wiped.secret.wipe()
        let pin = try secret("493027")
        assertThrows(.invalidLength("pepper")) { try SeedSealer.open(sealed, pin: pin, pepper: wiped) }
    }

    // MARK: Tampering: every header field, the nonce and the ciphertext

    func testOpen_withTamperedFormatVersion_fails() throws {
        var sealed = try seal()
        for version: UInt8 in [0, 1, 2, 4, 255] {
            sealed.header.formatVersion = version
            try assertDoesNotOpen(sealed, "format version \(version)")
        }
        var legacy = try seal(purpose: .legacy)
        for version: UInt8 in [0, 2, 3] {
            legacy.header.formatVersion = version
            try assertDoesNotOpen(legacy, "legacy record as format version \(version)")
        }
    }

    // MARK: Purposes

    func testSeal_writesFormat3WithThePurpose_andALegacyKeyInFormat1() throws {
        for purpose in KeyPurpose.registrable {
            let sealed = try seal(purpose: purpose)
            XCTAssertEqual(sealed.header.formatVersion, 3, "\(purpose)")
            XCTAssertEqual(sealed.header.purpose, purpose)
            XCTAssertTrue(try SeedSealer.open(sealed, pin: secret("493027"), pepper: pepper).constantTimeEquals(seed))
        }
        let legacy = try seal(purpose: .legacy)
        XCTAssertEqual(legacy.header.formatVersion, 1)
        XCTAssertTrue(try SeedSealer.open(legacy, pin: secret("493027"), pepper: pepper).constantTimeEquals(seed))
    }

    /// The purpose is sealed in: a row whose purpose column was edited (to make an
    /// app's key an ssh one, say) does not open, whatever the PIN.
    func testOpen_withAnotherPurpose_fails() throws {
        for purpose in KeyPurpose.registrable {
            for other in KeyPurpose.registrable where other != purpose {
                var sealed = try seal(purpose: purpose)
                sealed.header.purpose = other
                try assertDoesNotOpen(sealed, "\(purpose) as \(other)")
            }
        }
    }

    /// A key cannot be made legacy (usable by every door) by editing its row, nor a
    /// legacy key given a purpose: either edit leaves a format that does not hold it,
    /// and changing the format too changes the header the box key was made from.
    func testOpen_ofAPurposeBoundKeyPassedOffAsLegacy_orTheReverse_fails() throws {
        var bound = try seal(purpose: .ssh)
        bound.header.purpose = .legacy
        try assertDoesNotOpen(bound, "ssh as legacy, format 2")
        bound.header.formatVersion = 1
        try assertDoesNotOpen(bound, "ssh as legacy, format 1")
        var legacy = try seal(purpose: .legacy)
        legacy.header.purpose = .authenticate
        try assertDoesNotOpen(legacy, "legacy as authenticate, format 1")
        legacy.header.formatVersion = 2
        try assertDoesNotOpen(legacy, "legacy as authenticate, format 2")
    }

    func testSeal_ofAHeaderWhoseFormatDoesNotHoldItsPurpose_isRefused() throws {
        var header = try seal().header
        header.formatVersion = 1
        let seed = self.seed!, pepper = self.pepper!
        assertThrows(.invalidLength("header")) {
            try SeedSealer.seal(seed: seed, pin: secret("493027"), pepper: pepper, header: header, nonce: RandomBytes.make(count: 24))
        }
    }

    func testOpen_withTamperedOwnerUid_fails() throws {
        var sealed = try seal()
        sealed.header.ownerUid ^= 1
        try assertDoesNotOpen(sealed, "owner uid")
    }

    func testOpen_withTamperedUser_fails() throws {
        var sealed = try seal()
        sealed.header.user = "alice@example.co"
        try assertDoesNotOpen(sealed, "user")
    }

    func testOpen_withTamperedKeyId_fails() throws {
        var sealed = try seal()
        var bytes = sealed.header.keyId.bytes
        bytes[0] ^= 1
        sealed.header.keyId = try XCTUnwrap(KeyID(bytes: bytes))
        try assertDoesNotOpen(sealed, "keyId")
    }

    func testOpen_withTamperedOpslimit_fails() throws {
        var sealed = try seal()
        sealed.header.kdf.opslimit += 1
        try assertDoesNotOpen(sealed, "opslimit")
    }

    func testOpen_withTamperedMemlimit_fails() throws {
        var sealed = try seal()
        sealed.header.kdf.memlimit += 1024
        try assertDoesNotOpen(sealed, "memlimit, other Argon2id cost")
        sealed.header.kdf.memlimit = weakParameters.memlimit + 1
        try assertDoesNotOpen(sealed, "memlimit, same Argon2id cost in KiB, different header")
    }

    func testOpen_withTamperedSalt_fails() throws {
        var sealed = try seal()
        sealed.header.salt[7] ^= 0x80
        try assertDoesNotOpen(sealed, "salt")
    }

    func testOpen_withTamperedNonce_fails() throws {
        var sealed = try seal()
        sealed.nonce[23] ^= 1
        try assertDoesNotOpen(sealed, "nonce")
    }

    func testOpen_withTamperedCiphertext_fails() throws {
        let original = try seal()
        for index in [0, 15, 16, 31, 47] {
            var sealed = original
            sealed.ciphertext[index] ^= 1
            try assertDoesNotOpen(sealed, "ciphertext byte \(index)")
        }
    }

    // MARK: Moved records

    func testOpen_ofARecordMovedToAnotherUid_fails() throws {
        var sealed = try seal(ownerUid: 1000)
        sealed.header.ownerUid = 1001
        try assertDoesNotOpen(sealed, "moved to uid 1001")
    }

    func testOpen_ofARecordMovedToAnotherUser_fails() throws {
        var sealed = try seal(user: "alice@example.com")
        sealed.header.user = "mallory@example.com"
        try assertDoesNotOpen(sealed, "moved to another user")
    }

    func testOpen_ofAnotherRecordsCiphertextUnderThisHeader_fails() throws {
        var sealed = try seal(user: "alice@example.com")
        let other = try seal(user: "bob@example.com")
        sealed.nonce = other.nonce
        sealed.ciphertext = other.ciphertext
        try assertDoesNotOpen(sealed, "ciphertext spliced from another record")
    }

    // MARK: Malformed records

    func testOpen_withBadSizes_fails() throws {
        let original = try seal()
        var shortSalt = original
        shortSalt.header.salt.removeLast()
        try assertDoesNotOpen(shortSalt, "15-byte salt")
        var shortNonce = original
        shortNonce.nonce.removeLast()
        try assertDoesNotOpen(shortNonce, "23-byte nonce")
        var longCiphertext = original
        longCiphertext.ciphertext.append(0)
        try assertDoesNotOpen(longCiphertext, "49-byte ciphertext")
        var emptyCiphertext = original
        emptyCiphertext.ciphertext = []
        try assertDoesNotOpen(emptyCiphertext, "empty ciphertext")
    }

    func testOpen_withParametersLibsodiumRefuses_failsWithoutRunningTheKDF() throws {
        var sealed = try seal()
        sealed.header.kdf = KDFParameters(opslimit: 0, memlimit: 0)
        try assertDoesNotOpen(sealed, "opslimit 0")
    }

    // MARK: Sealing errors

    func testSeal_withSeedOfWrongSize_throwsInvalidLength() throws {
        let short = try SecretBytes.random(count: 31)
        let pin = try secret("493027")
        assertThrows(.invalidLength("seed")) {
            try SeedSealer.seal(
                seed: short, pin: pin, pepper: pepper, purpose: .authenticate, algorithm: .ed25519, ownerUid: 1, user: "a", keyId: keyId,
                parameters: weakParameters
            )
        }
    }

    func testSeal_withParametersLibsodiumRefuses_throwsInvalidKDFParameters() {
        assertThrows(.invalidKDFParameters) { try seal(parameters: KDFParameters(opslimit: 1, memlimit: 4096)) }
    }

    func testSeal_withUserLongerThanTheHeaderHolds_throwsInvalidLength() {
        assertThrows(.invalidLength("user")) { try seal(user: String(repeating: "u", count: 65_536)) }
    }

    // MARK: Re-sealing

    func testReseal_takesAFreshSaltAndNonce_andTheOldPinNoLongerOpens() throws {
        let old = try seal(pin: "493027")
        let opened = try SeedSealer.open(old, pin: secret("493027"), pepper: pepper)
        let new = try SeedSealer.seal(
            seed: opened, pin: secret("816204"), pepper: pepper, purpose: old.header.purpose, algorithm: .ed25519, ownerUid: old.header.ownerUid,
            user: old.header.user, keyId: old.header.keyId, parameters: old.header.kdf
        )
        XCTAssertNotEqual(new.header.salt, old.header.salt)
        XCTAssertNotEqual(new.nonce, old.nonce)
        try assertDoesNotOpen(new, pin: "493027", "old PIN on the new record")
        XCTAssertTrue(try SeedSealer.open(new, pin: secret("816204"), pepper: pepper).constantTimeEquals(seed))
    }

    func testReseal_withTheSamePin_stillTakesAFreshSaltAndNonce() throws {
        let first = try seal()
        let second = try seal()
        XCTAssertNotEqual(first.header.salt, second.header.salt)
        XCTAssertNotEqual(first.nonce, second.nonce)
        XCTAssertNotEqual(first.ciphertext, second.ciphertext)
    }

    func testUpgrade_fromWeakToStrongerParameters_opensWithTheNewParameters() throws {
        let stronger = KDFParameters(opslimit: 2, memlimit: 64 * 1024)
        XCTAssertTrue(weakParameters.isWeaker(than: stronger))
        let weak = try seal(parameters: weakParameters)
        let opened = try SeedSealer.open(weak, pin: secret("493027"), pepper: pepper)
        let upgraded = try SeedSealer.seal(
            seed: opened, pin: secret("493027"), pepper: pepper, purpose: weak.header.purpose, algorithm: .ed25519, ownerUid: weak.header.ownerUid,
            user: weak.header.user, keyId: weak.header.keyId, parameters: stronger
        )
        XCTAssertEqual(upgraded.header.kdf, stronger)
        XCTAssertTrue(try SeedSealer.open(upgraded, pin: secret("493027"), pepper: pepper).constantTimeEquals(seed))

        var downgraded = upgraded
        downgraded.header.kdf = weakParameters
        try assertDoesNotOpen(downgraded, "upgraded record with its parameters edited back")
    }

    // MARK: Box key

    func testBoxKey_dependsOnPinKeyPepperAndEveryHeaderByte() throws {
        let pinKey = try SecretBytes.random(count: 32)
        let header = try seal().header
        let key = try SeedSealer.boxKey(pinKey: pinKey, pepper: pepper, header: header)
        XCTAssertEqual(key.count, 32)
        XCTAssertTrue(key.constantTimeEquals(try SeedSealer.boxKey(pinKey: pinKey, pepper: pepper, header: header)))

        XCTAssertFalse(key.constantTimeEquals(
            try SeedSealer.boxKey(pinKey: SecretBytes.random(count: 32), pepper: pepper, header: header)))
        XCTAssertFalse(key.constantTimeEquals(
            try SeedSealer.boxKey(pinKey: pinKey, pepper: Pepper.generate(), header: header)))
        var other = header
        other.user += "x"
        XCTAssertFalse(key.constantTimeEquals(try SeedSealer.boxKey(pinKey: pinKey, pepper: pepper, header: other)))
    }

    func testBoxKey_isKeyedBLAKE2b256OfPinKeyThenHeader() throws {
        let pinKey = try SecretBytes.random(count: 32)
        let header = try seal().header
        let message = contents(pinKey) + header.canonicalEncoding()
        let expected = try message.withUnsafeBytes { message in
            try pepper.secret.withUnsafeBytes { try BLAKE2b.hash(message, key: $0, outputLength: 32) }
        }
        XCTAssertEqual(contents(try SeedSealer.boxKey(pinKey: pinKey, pepper: pepper, header: header)), expected)
    }

    func testBoxKey_withPinKeyOfWrongSize_throwsInvalidLength() throws {
        let header = try seal().header
        let short = try SecretBytes.random(count: 16)
        assertThrows(.invalidLength("pinKey")) { try SeedSealer.boxKey(pinKey: short, pepper: pepper, header: header) }
    }
}

/// Upgrade on use takes the larger of each cost (SECURITY.md, "KDF costs").
final class KDFParametersUpgradeTests: XCTestCase {
    func testUpgraded_takesTheLargerOfEachCost() {
        let record = KDFParameters(opslimit: 4, memlimit: 64 << 20)
        let configured = KDFParameters(opslimit: 3, memlimit: 128 << 20)
        XCTAssertTrue(record.isWeaker(than: configured))
        XCTAssertEqual(record.upgraded(to: configured), KDFParameters(opslimit: 4, memlimit: 128 << 20))
        XCTAssertEqual(configured.upgraded(to: record), KDFParameters(opslimit: 4, memlimit: 128 << 20))
    }

    func testUpgraded_leavesAStrongerRecordAsItIs() {
        let record = KDFParameters(opslimit: 4, memlimit: 128 << 20)
        XCTAssertEqual(record.upgraded(to: .default), record)
        XCTAssertFalse(record.isWeaker(than: .default))
    }

    func testExceeds_isTrueWhenEitherCostIsAboveTheMaximum() {
        let maximum = KDFParameters(opslimit: 16, memlimit: 1 << 30)
        XCTAssertFalse(maximum.exceeds(maximum))
        XCTAssertTrue(KDFParameters(opslimit: 17, memlimit: 8192).exceeds(maximum))
        XCTAssertTrue(KDFParameters(opslimit: 1, memlimit: (1 << 30) + 1024).exceeds(maximum))
        XCTAssertTrue(KDFParameters(opslimit: 0xFFFF_FFFF, memlimit: 4_398_046_510_080).exceeds(maximum))
    }
}
