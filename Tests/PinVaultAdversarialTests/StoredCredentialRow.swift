import Foundation
import PinVaultCrypto
import PinVaultTestKit

/// One row of a running daemon's `credentials` table, read from outside with Python's
/// sqlite3, and the secrets docs/FORMAT.md derives from it with the pepper and a PIN:
/// the Argon2id output (PIN key), the box key, the seed it seals and, for a P-256 key,
/// the private scalar derived from it. The memory scan searches the daemon for each.
struct StoredCredentialRow: Hashable {
    let keyId: String
    let purpose: KeyPurpose
    let formatVersion: UInt8
    let algorithm: KeyAlgorithm
    let ownerUid: UInt32
    let user: String
    let opslimit: UInt64
    let memlimit: UInt64
    let salt: [UInt8]
    let nonce: [UInt8]
    let sealedSeed: [UInt8]

    /// Every row of `stateDirectory/vault.sqlite` now.
    static func all(stateDirectory: String) throws -> [StoredCredentialRow] {
        let python = ProcessInfo.processInfo.environment["PINVAULT_PYTHON"] ?? "/usr/bin/python3"
        let script = """
            import sqlite3, sys
            connection = sqlite3.connect(sys.argv[1])
            for row in connection.execute("SELECT key_id, owner_uid, hex(CAST(user AS BLOB)), kdf_opslimit, kdf_memlimit, "
                                          "hex(salt), hex(nonce), hex(sealed_seed), purpose, format_version, algorithm "
                                          "FROM credentials"):
                print(*row)
            """
        let result = try Subprocess.run(python, ["-c", script, stateDirectory + "/vault.sqlite"])
        guard result.status == 0 else { throw TestKitError("reading the rows: \(result)") }
        return try result.standardOutput.split(separator: "\n").map { line in
            let fields = line.split(separator: " ").map(String.init)
            guard fields.count == 11, let owner = UInt32(fields[1]), let opslimit = UInt64(fields[3]),
                  let memlimit = UInt64(fields[4]), let purpose = KeyPurpose(rawValue: fields[8]),
                  let format = UInt8(fields[9]), let algorithm = KeyAlgorithm(rawValue: fields[10])
            else { throw TestKitError("unreadable row: \(line)") }
            return StoredCredentialRow(
                keyId: fields[0], purpose: purpose, formatVersion: format, algorithm: algorithm, ownerUid: owner, user: String(decoding: bytes(hex: fields[2]), as: UTF8.self),
                opslimit: opslimit, memlimit: memlimit,
                salt: bytes(hex: fields[5]), nonce: bytes(hex: fields[6]), sealedSeed: bytes(hex: fields[7])
            )
        }
    }

    /// The 32-byte pepper of `stateDirectory`.
    static func pepper(stateDirectory: String) throws -> Pepper {
        let bytes = [UInt8](try Data(contentsOf: URL(fileURLWithPath: stateDirectory + "/pepper")))
        return try Pepper(secret: bytes.withUnsafeBytes { try SecretBytes(copying: $0) })
    }

    /// What the daemon computes from this row and `pin` (FORMAT.md, sections 4–6): the
    /// PIN key and the box key always, the seed when `pin` is the row's PIN, and then for
    /// a P-256 key its scalar, big-endian as PinVault holds it and little-endian as
    /// libcrypto's BIGNUM limbs hold it on this machine.
    func secrets(pin: String, pepper: Pepper) throws -> (pinKey: [UInt8], boxKey: [UInt8], seed: [UInt8]?, scalars: [[UInt8]]) {
        guard let keyID = KeyID(hex: keyId) else { throw TestKitError("bad key_id \(keyId)") }
        let header = RecordHeader(
            formatVersion: formatVersion, purpose: purpose, algorithm: algorithm, ownerUid: ownerUid, user: user, keyId: keyID,
            kdf: KDFParameters(opslimit: opslimit, memlimit: memlimit), salt: salt
        )
        let secretPin = try Array(pin.utf8).withUnsafeBytes { try SecretBytes(copying: $0) }
        let pinKey = try PinKDF.deriveKey(pin: secretPin, salt: salt, parameters: header.kdf)
        let boxKey = try SeedSealer.boxKey(pinKey: pinKey, pepper: pepper, header: header)
        let seed = try? SeedSealer.open(SealedSeed(header: header, nonce: nonce, ciphertext: sealedSeed), pin: secretPin, pepper: pepper)
        var scalars: [[UInt8]] = []
        if algorithm == .p256, let seed {
            let scalar = Self.copy(try P256.scalar(seed: seed))
            scalars = [scalar, scalar.reversed()]
        }
        return (Self.copy(pinKey), Self.copy(boxKey), seed.map(Self.copy), scalars)
    }

    private static func copy(_ secret: SecretBytes) -> [UInt8] {
        secret.withUnsafeBytes { Array($0) }
    }

    private static func bytes(hex: String) -> [UInt8] {
        var result: [UInt8] = []
        var index = hex.startIndex
        while index < hex.endIndex, let next = hex.index(index, offsetBy: 2, limitedBy: hex.endIndex) {
            result.append(UInt8(hex[index..<next], radix: 16) ?? 0)
            index = next
        }
        return result
    }
}
