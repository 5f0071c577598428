import PinVaultCrypto

/// The mapping between `CredentialRecord` and a row of `credentials` (schema v6).
extension CredentialRecord {
    /// Every column, in the order `init(row:)` reads and `columnValues` writes.
    static let columns = """
        key_id, owner_uid, user, label, public_key, format_version, kdf_opslimit, kdf_memlimit, \
        salt, nonce, sealed_seed, created_at, last_used_at, failed_attempts, locked_until, \
        unregister_token_hash, unregister_expires_at, purpose, wrong_pins_since_success, algorithm
        """
    static let columnCount: Int32 = 20

    /// The row's values for `columns`; `StoreError.invalidRecord` names the first field
    /// that cannot be stored.
    func columnValues() throws(StoreError) -> [SQLiteValue] {
        let header = sealed.header
        let userBytes = header.user.utf8.count
        guard (1...Self.maxUserBytes).contains(userBytes) else { throw StoreError.invalidRecord("user") }
        guard header.algorithm.isWellFormed(publicKey: publicKey) else { throw StoreError.invalidRecord("publicKey") }
        guard header.salt.count == RecordHeader.saltSize else { throw StoreError.invalidRecord("salt") }
        guard sealed.nonce.count == SealedSeed.nonceSize else { throw StoreError.invalidRecord("nonce") }
        guard sealed.ciphertext.count == SealedSeed.ciphertextSize else {
            throw StoreError.invalidRecord("ciphertext")
        }
        guard let opslimit = Int64(exactly: header.kdf.opslimit) else { throw StoreError.invalidRecord("opslimit") }
        guard let memlimit = Int64(exactly: header.kdf.memlimit) else { throw StoreError.invalidRecord("memlimit") }
        guard RecordHeader.holds(version: header.formatVersion, purpose: header.purpose, algorithm: header.algorithm) else {
            throw StoreError.invalidRecord("purpose")
        }
        guard failedAttempts >= 0 else { throw StoreError.invalidRecord("failedAttempts") }
        guard wrongPinsSinceSuccess >= 0 else { throw StoreError.invalidRecord("wrongPinsSinceSuccess") }
        if let pending = pendingUnregistration, pending.tokenHash.count != PendingUnregistration.tokenHashSize {
            throw StoreError.invalidRecord("unregistration token hash")
        }
        return [
            .text(header.keyId.hex),
            .integer(Int64(header.ownerUid)),
            .text(header.user),
            .text(label),
            .blob(publicKey),
            .integer(Int64(header.formatVersion)),
            .integer(opslimit),
            .integer(memlimit),
            .blob(header.salt),
            .blob(sealed.nonce),
            .blob(sealed.ciphertext),
            .integer(createdAt),
            .integer(lastUsedAt),
            .integer(Int64(failedAttempts)),
            .integer(lockedUntil),
            .blob(pendingUnregistration?.tokenHash),
            .integer(pendingUnregistration?.expiresAt),
            .text(header.purpose.rawValue),
            .integer(Int64(wrongPinsSinceSuccess)),
            .text(header.algorithm.name),
        ]
    }

    /// Decodes the current row of a statement that selected `rowid, ` + `columns`.
    /// Any column of the wrong type, size or range makes the whole row
    /// `StoreError.corruptRecord`, named by its key id (or rowid when that is unreadable).
    init(row: SQLiteStatement) throws(StoreError) {
        var reader = RowReader(statement: row)
        let rowid = reader.integer()
        guard let keyText = reader.text(), let keyId = KeyID(hex: keyText) else {
            throw StoreError.corruptRecord("rowid \(rowid.map(String.init) ?? "?")")
        }
        func corrupt() -> StoreError { StoreError.corruptRecord(keyId.hex) }

        guard let owner = reader.integer().flatMap(UInt32.init(exactly:)),
            let user = reader.text(), (1...Self.maxUserBytes).contains(user.utf8.count),
            let label = reader.optionalText()
        else { throw corrupt() }
        guard let publicKey = reader.blob(maxCount: KeyAlgorithm.maxPublicKeySize),
            let version = reader.integer().flatMap(UInt8.init(exactly:)),
            let opslimit = reader.integer().flatMap(UInt64.init(exactly:)),
            let memlimit = reader.integer().flatMap(UInt64.init(exactly:)),
            let salt = reader.blob(count: RecordHeader.saltSize),
            let nonce = reader.blob(count: SealedSeed.nonceSize),
            let ciphertext = reader.blob(count: SealedSeed.ciphertextSize),
            let createdAt = reader.integer(),
            let lastUsedAt = reader.optionalInteger(),
            let failedAttempts = reader.integer().flatMap(Int.init(exactly:)), failedAttempts >= 0,
            let lockedUntil = reader.optionalInteger(),
            let tokenHash = reader.optionalBlob(count: PendingUnregistration.tokenHashSize),
            let expiresAt = reader.optionalInteger(),
            let purpose = reader.text().flatMap(KeyPurpose.init(rawValue:)),
            let wrongPins = reader.integer().flatMap(Int.init(exactly:)), wrongPins >= 0,
            let algorithm = reader.text().flatMap(KeyAlgorithm.init(rawValue:)),
            algorithm.isWellFormed(publicKey: publicKey),
            // A format that does not hold this purpose or algorithm: edited from outside.
            RecordHeader.holds(version: version, purpose: purpose, algorithm: algorithm)
        else { throw corrupt() }

        let pending: PendingUnregistration?
        switch (tokenHash, expiresAt) {
        case (.some(let hash), .some(let expiry)): pending = PendingUnregistration(tokenHash: hash, expiresAt: expiry)
        case (.none, .none): pending = nil
        default: throw corrupt()
        }
        let header = RecordHeader(
            formatVersion: version, purpose: purpose, algorithm: algorithm, ownerUid: owner, user: user, keyId: keyId,
            kdf: KDFParameters(opslimit: opslimit, memlimit: memlimit), salt: salt)
        self.init(
            sealed: SealedSeed(header: header, nonce: nonce, ciphertext: ciphertext),
            label: label, publicKey: publicKey, createdAt: createdAt, lastUsedAt: lastUsedAt,
            failedAttempts: failedAttempts, wrongPinsSinceSuccess: wrongPins, lockedUntil: lockedUntil,
            pendingUnregistration: pending)
    }
}

/// Reads a row's columns left to right, each as the one type it must have.
/// Each accessor returns nil when the column has another type or size.
private struct RowReader {
    let statement: SQLiteStatement
    var index: Int32 = 0

    mutating func next() -> SQLiteValue {
        defer { index += 1 }
        return statement.value(at: index)
    }

    mutating func integer() -> Int64? {
        if case .integer(let value) = next() { return value }
        return nil
    }

    mutating func text() -> String? {
        if case .text(let bytes) = next() { return String(validating: bytes, as: UTF8.self) }
        return nil
    }

    /// A blob of 1 to `maxCount` bytes (a size its column's meaning checks further).
    mutating func blob(maxCount: Int) -> [UInt8]? {
        if case .blob(let bytes) = next(), (1...maxCount).contains(bytes.count) { return bytes }
        return nil
    }

    mutating func blob(count: Int) -> [UInt8]? {
        if case .blob(let bytes) = next(), bytes.count == count { return bytes }
        return nil
    }

    /// `.some(nil)` for NULL, `.some(text)` for valid UTF-8 text, nil for anything else.
    mutating func optionalText() -> String?? {
        switch next() {
        case .null: return .some(nil)
        case .text(let bytes): return String(validating: bytes, as: UTF8.self).map { .some($0) }
        default: return nil
        }
    }

    /// `.some(nil)` for NULL, `.some(value)` for an integer, nil for anything else.
    mutating func optionalInteger() -> Int64?? {
        switch next() {
        case .null: return .some(nil)
        case .integer(let value): return .some(value)
        default: return nil
        }
    }

    /// `.some(nil)` for NULL, `.some(bytes)` for a blob of `count` bytes, nil for anything else.
    mutating func optionalBlob(count: Int) -> [UInt8]?? {
        switch next() {
        case .null: return .some(nil)
        case .blob(let bytes) where bytes.count == count: return .some(bytes)
        default: return nil
        }
    }
}
