/// The connection as seen by one `read` or `write` body. Ended when that call returns,
/// so a reader or writer that escaped its closure fails instead of running outside
/// the transaction and the lock.
final class TransactionScope {
    private let connection: SQLiteConnection
    private var isOpen = true

    init(connection: SQLiteConnection) {
        self.connection = connection
    }

    func end() {
        isOpen = false
    }

    /// The connection, or `StoreError.transactionEnded`.
    func open() throws(StoreError) -> SQLiteConnection {
        guard isOpen else { throw StoreError.transactionEnded }
        return connection
    }
}
