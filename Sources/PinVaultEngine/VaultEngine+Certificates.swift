import PinVaultCrypto
import PinVaultSSHProtocol
import PinVaultStore

/// OpenSSH certificates an owner attaches to an `ssh` credential (`pinvault ssh-cert`):
/// public data, checked to certify the credential's own key, stored beside it and
/// offered by both agents with the key while it is unlocked.
extension VaultEngine {
    /// Certificates one credential may carry.
    static let maxCertificatesPerCredential = 16

    func addCertificate(_ call: Call, keyId: KeyID, certificate: [UInt8]) {
        let time = now()
        changeCertificates(call, keyId: keyId) { writer, record in
            guard let parsed = try? certificate.withUnsafeBytes({ bytes throws(SSHAgentMessageError) in
                try SSHCertificate(blob: bytes)
            }), parsed.kind == .user, parsed.algorithm == record.algorithm, parsed.publicKey == record.publicKey else {
                throw VaultError.invalidCertificate
            }
            let held = try writer.certificates(keyId: keyId)
            guard held.contains(certificate) || held.count < Self.maxCertificatesPerCredential else {
                throw VaultError.tooManyCertificates(limit: Self.maxCertificatesPerCredential)
            }
            try writer.addCertificate(certificate, keyId: keyId, at: time)
        }
    }

    func removeCertificate(_ call: Call, keyId: KeyID, certificate: [UInt8]) {
        // Detaching one not attached changes nothing, as attaching one attached does.
        changeCertificates(call, keyId: keyId) { writer, _ in
            _ = try writer.removeCertificate(certificate, keyId: keyId)
        }
    }

    /// Runs `change` on the caller's own `ssh` credential `keyId` in one transaction,
    /// then gives its session (if unlocked) the certificates as they are now; answers
    /// the credential with them.
    private func changeCertificates(
        _ call: Call, keyId: KeyID, _ change: @escaping @Sendable (VaultWriter, CredentialRecord) throws -> Void
    ) {
        let owner = call.caller.uid
        onStore(call) { [self] () throws(VaultError) -> VaultResult? in
            let (record, certificates): (CredentialRecord, [[UInt8]]) = try write(call) { writer in
                // Another uid's credential does not exist for the caller.
                guard let record = try writer.credential(keyId: keyId), record.ownerUid == owner else {
                    throw VaultError.noSuchCredential
                }
                guard record.purpose == .ssh else { throw VaultError.wrongPurpose(record.purpose) }
                try change(writer, record)
                return (record, try writer.certificates(keyId: keyId))
            }
            sessions.setCertificates(certificates, keyId: keyId)
            return .credential(view(of: record, certificates: certificates))
        }
    }
}
