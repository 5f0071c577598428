import PinVaultStore
import PinVaultSystem

/// A check of every stored record, in the background: the start reads no row (so it
/// costs the same at any size), and this sweep then decodes each row in slices on the
/// store queue, between requests, and reports the rows that do not decode (List and
/// every lookup leave those out). It first counts the legacy credentials, through
/// their own index, and names their number once.
extension VaultEngine {
    /// Rows decoded per store-queue job: a few milliseconds of the store's time.
    static let sweepSlice = 512

    /// Starts the sweep; it logs what it found once it has read the last row.
    public func sweepStoredRecords() {
        let admission = storeQueue.submit(uid: UInt32.max) { [self] in
            reportLegacyCredentials()
            sweep(after: 0, seen: 0, corrupt: [])
        }
        if case .busy = admission {
            logger.warning("the check of the stored records gave way to a full store queue; it runs again at the next start")
        }
    }

    /// One notice when credentials made before key purposes remain (SECURITY.md,
    /// "Signature domains": they work where they did, under every door's shape check).
    private func reportLegacyCredentials() {
        do {
            let count = try store.read { try $0.legacyCount() }
            guard count > 0 else { return }
            logger.notice("credentials made before key purposes (legacy) keep working where they did, each door signing only what it signs for any key; register a key per purpose and retire them (SECURITY.md, \"Signature domains\")", metadata: [
                "legacyCredentials": "\(count)",
            ])
        } catch {
            logger.error("the legacy credentials could not be counted", metadata: ["error": "\(error)"])
        }
    }

    private func sweep(after rowid: Int64, seen: Int, corrupt: [String]) {
        // Not a peer's work: the uid no peer can have ((uid_t)-1), never cancelled.
        let admission = storeQueue.submit(uid: UInt32.max) { [self] in
            let slice: (corrupt: [String], last: Int64?)
            do {
                slice = try store.read { try $0.corruptRecords(after: rowid, limit: Self.sweepSlice) }
            } catch {
                logger.error("the check of the stored records stopped", metadata: ["error": "\(error)"])
                return
            }
            let found = corrupt + slice.corrupt
            guard let last = slice.last else { return report(seen: seen, corrupt: found) }
            sweep(after: last, seen: seen + Self.sweepSlice, corrupt: found)
        }
        if case .busy = admission {
            logger.warning("the check of the stored records gave way to a full store queue; it runs again at the next start")
        }
    }

    /// The sweep's verdict; it is the last of the start-up's work, so what start-up left
    /// free on the heap goes back to the kernel here (`FreeHeap`).
    private func report(seen: Int, corrupt: [String]) {
        defer { FreeHeap.release() }
        if corrupt.isEmpty {
            logger.info("every stored record decodes")
        } else {
            logger.error("records that do not decode are ignored", metadata: [
                "count": "\(corrupt.count)", "records": "\(corrupt.prefix(16).joined(separator: ","))",
            ])
        }
    }
}
