import Glibc
import PinVaultCrypto
import PinVaultStore

/// Fills a state directory's vault with credentials written straight through
/// PinVaultStore, before the daemon first starts there (registering 100,000
/// credentials through the daemon at production KDF cost would take hours).
///
/// One seed is sealed once at weak KDF parameters (opslimit 1, 8 KiB); every filler row
/// is a copy of that sealed seed under its own header: a random public key and its key
/// id, an account `filler-N` (8 credentials each) under uids from 100000 on (64 each),
/// so that no uid or account exceeds the limits registrations obey. The rows decode
/// like any record; they would not open (their headers are not the one that was
/// sealed), which nothing measured needs.
enum FillerStore {
    /// Rows under `filler-N` accounts are owned by uids from here on.
    static let firstFillerUid: UInt32 = 100_000
    /// Weak parameters of the copied seal; the real credentials use the configured ones.
    static let fillerKDF = KDFParameters(opslimit: 1, memlimit: 8192)

    /// What filling took and left on disk.
    struct Outcome {
        /// Seconds to prepare the directory, seal, insert and close (checkpoint).
        let seconds: Double
        /// `vault.sqlite` plus any `-wal` file after the store was closed.
        let bytesOnDisk: Int
    }

    /// Prepares `stateDirectory` (and its pepper, as the daemon would at first start),
    /// then inserts `count` filler rows plus `ownRows` rows for `ownUser` under the
    /// caller's uid, in transactions of `batchSize` rows.
    static func fill(
        stateDirectory: String,
        count: Int,
        ownUser: String,
        ownRows: Int,
        batchSize: Int = 10_000
    ) throws -> Outcome {
        let begin = Monotonic.now()
        try StateDirectory.prepare(path: stateDirectory)
        let (pepper, _) = try PepperFile.load(credentialsDirectory: nil, stateDirectory: stateDirectory, recordsExist: false)
        let template = try sealTemplate(pepper: pepper)
        let store = try VaultStore(path: stateDirectory + "/vault.sqlite")
        let now = Int64(time(nil))
        var next = 0
        let total = count + ownRows
        while next < total {
            let end = min(next + batchSize, total)
            try store.write { writer in
                for index in next..<end {
                    try writer.insert(try row(index, count: count, ownUser: ownUser, template: template, now: now))
                }
            }
            next = end
        }
        store.close()
        let path = stateDirectory + "/vault.sqlite"
        return Outcome(seconds: Monotonic.seconds(since: begin), bytesOnDisk: fileSize(path) + fileSize(path + "-wal"))
    }

    /// Row `index`: a filler row below `count`, one of the caller's own rows above.
    private static func row(
        _ index: Int, count: Int, ownUser: String, template: SealedSeed, now: Int64
    ) throws -> CredentialRecord {
        let publicKey = RandomBytes.make(count: 32)
        let isOwn = index >= count
        let header = RecordHeader(
            purpose: .authenticate,
            ownerUid: isOwn ? geteuid() : firstFillerUid + UInt32(index / 64),
            user: isOwn ? ownUser : "filler-\(index / 8)",
            keyId: try KeyID(publicKey: publicKey),
            kdf: fillerKDF,
            salt: template.header.salt
        )
        return CredentialRecord(
            sealed: SealedSeed(header: header, nonce: template.nonce, ciphertext: template.ciphertext),
            label: "app-\(index % 8)",
            publicKey: publicKey,
            createdAt: now
        )
    }

    private static func sealTemplate(pepper: Pepper) throws -> SealedSeed {
        let seed = try SecretBytes.random(count: 32)
        let publicKey = try SigningKeyPair(algorithm: .ed25519, seed: seed).publicKey
        let pin = try Array(VaultCalls.pin.utf8).withUnsafeBytes { try SecretBytes(copying: $0) }
        return try SeedSealer.seal(
            seed: seed, pin: pin, pepper: pepper, purpose: .authenticate, algorithm: .ed25519, ownerUid: firstFillerUid, user: "filler-0",
            keyId: try KeyID(publicKey: publicKey), parameters: fillerKDF)
    }

    /// Bytes in the file at `path`; 0 when there is none.
    static func fileSize(_ path: String) -> Int {
        var status = stat()
        return stat(path, &status) == 0 ? Int(status.st_size) : 0
    }
}
