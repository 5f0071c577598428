import PinVaultCrypto
@testable import PinVaultStore

/// A vault as the second release wrote it: schema version 2 (made by the schema's own
/// first two steps), and rows with that release's 17 columns, each a format-1 record.
enum SecondReleaseVault {
    static let schemaVersion = 2

    /// Makes the file at `path` and writes `records` (legacy ones: format 1) into it.
    static func make(path: String, records: [CredentialRecord]) throws {
        try DatabaseFile.prepare(path: path)
        let connection = try SQLiteConnection(path: path)
        defer { connection.close() }
        try Schema.migrate(connection, to: schemaVersion)
        for record in records {
            precondition(record.purpose == .legacy, "the second release wrote format-1 records only")
            // Its columns were today's but the last (purpose).
            let values = Array(try record.columnValues().dropLast())
            let columns = CredentialRecord.columns.split(separator: ",").dropLast().joined(separator: ",")
            let placeholders = (1...values.count).map { "?\($0)" }.joined(separator: ", ")
            try connection.execute("INSERT INTO credentials (\(columns)) VALUES (\(placeholders))", values)
        }
    }
}
