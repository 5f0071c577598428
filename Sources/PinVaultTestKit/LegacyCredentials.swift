import Foundation
import PinVaultCrypto
import PinVaultStore

/// Credentials as the second release made them — record format 1, no purpose, read as
/// `legacy` — written into a stopped daemon's vault for the current uid, so that any
/// uid's test can use them (the integration tests', and the ssh tests' legacy key in
/// sshd). (`SecondReleaseVaultTests` opens a vault the second release's binaries
/// wrote, which only root's tests can use.)
public enum LegacyCredentials {
    /// Adds a legacy credential of `user` under `pin` to `daemon`'s vault (the daemon
    /// stopped, its pepper made); its key id.
    public static func add(to daemon: TestDaemon, user: String, label: String?, pin: String) throws -> String {
        let pepperBytes = [UInt8](try Data(contentsOf: URL(fileURLWithPath: daemon.stateDirectory + "/pepper")))
        let pepper = try Pepper(secret: pepperBytes.withUnsafeBytes { try SecretBytes(copying: $0) })
        let seed = try KeyAlgorithm.generateSeed()
        let keyPair = try SigningKeyPair(algorithm: .ed25519, seed: seed)
        let keyId = try KeyID(publicKey: keyPair.publicKey)
        let sealed = try SeedSealer.seal(
            seed: seed, pin: try Array(pin.utf8).withUnsafeBytes { try SecretBytes(copying: $0) }, pepper: pepper,
            purpose: .legacy, algorithm: .ed25519, ownerUid: geteuid(), user: user, keyId: keyId,
            parameters: KDFParameters(opslimit: 1, memlimit: 8192)
        )
        let store = try VaultStore(path: daemon.stateDirectory + "/vault.sqlite")
        defer { store.close() }
        try store.write {
            try $0.insert(CredentialRecord(sealed: sealed, label: label, publicKey: keyPair.publicKey, createdAt: Int64(time(nil))))
        }
        return keyId.hex
    }
}
