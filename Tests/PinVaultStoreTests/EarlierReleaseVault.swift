import PinVaultCrypto
@testable import PinVaultStore

/// A vault as an earlier release wrote it: the schema's own first steps, up to that
/// release's version, and rows holding only the columns that version had — today's, in
/// today's order, up to its last (each step so far appended columns).
enum EarlierReleaseVault {
    /// The second release: schema version 2, 17 columns, format-1 records only.
    static let second = 2
    /// The third: schema version 3, the purpose column added.
    static let third = 3
    /// The fourth before key algorithms: schema version 5, format-2 (and 1) records,
    /// Ed25519 all, as the release before P-256 writes them.
    static let beforeAlgorithms = 5

    /// How many of today's columns `credentials` had at schema `version`.
    static func columnCount(atSchemaVersion version: Int) -> Int {
        switch version {
        case ...2: 17
        case 3, 4: 18  // 4 added a table, not a column
        case 5: 19
        default: Int(CredentialRecord.columnCount)
        }
    }

    /// Makes the file at `path` at schema `version` and writes `records` into it.
    static func make(path: String, schemaVersion version: Int, records: [CredentialRecord]) throws {
        try DatabaseFile.prepare(path: path)
        let connection = try SQLiteConnection(path: path)
        defer { connection.close() }
        try Schema.migrate(connection, to: version)
        for record in records {
            try insert(record, into: connection, schemaVersion: version)
        }
    }

    /// Writes `record` as a release at schema `version` would have: without the columns
    /// added since.
    static func insert(_ record: CredentialRecord, into connection: SQLiteConnection, schemaVersion version: Int) throws {
        precondition(version >= 3 || record.purpose == .legacy, "releases before the purpose wrote format-1 records only")
        precondition(version >= 6 || record.sealed.header.formatVersion <= 2, "releases before algorithms wrote formats 1 and 2 only")
        let kept = columnCount(atSchemaVersion: version)
        let values = Array(try record.columnValues().prefix(kept))
        let columns = CredentialRecord.columns.split(separator: ",").prefix(kept).joined(separator: ",")
        let placeholders = (1...values.count).map { "?\($0)" }.joined(separator: ", ")
        try connection.execute("INSERT INTO credentials (\(columns)) VALUES (\(placeholders))", values)
    }
}
