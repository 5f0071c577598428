/// One SQLite value, as bound to a statement parameter or read from a result column.
/// Text is kept as its UTF-8 bytes, so a column that is not valid UTF-8 reaches the
/// decoder (and becomes a corrupt record) instead of being repaired silently.
enum SQLiteValue: Equatable {
    case null
    case integer(Int64)
    case real(Double)
    case text([UInt8])
    case blob([UInt8])

    /// `.text` of a Swift string.
    static func text(_ string: String) -> SQLiteValue { .text(Array(string.utf8)) }

    /// `.null` for nil, else `.integer`.
    static func integer(_ value: Int64?) -> SQLiteValue { value.map { .integer($0) } ?? .null }

    /// `.null` for nil, else `.blob`.
    static func blob(_ value: [UInt8]?) -> SQLiteValue { value.map { .blob($0) } ?? .null }

    /// `.null` for nil, else `.text`.
    static func text(_ value: String?) -> SQLiteValue { value.map { .text($0) } ?? .null }
}
