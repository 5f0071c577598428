import PinVaultCrypto

extension PIN {
    /// Takes the bytes of every PIN a call carries, each with the parameter it is sent
    /// as. All or nothing: when one PIN was consumed before (`.pinConsumed`), or is empty
    /// (unless `allowingEmpty`), longer than the wire allows or not UTF-8
    /// (`.invalidParameter` naming it), every PIN passed is wiped anyway, as a call that
    /// fails before it is sent wipes its PINs. The same `PIN` object passed twice (the
    /// same current and new PIN) is taken once and sent twice.
    static func take(_ pins: [(pin: PIN, parameter: String)], allowingEmpty: Bool = false) throws(PinVaultError) -> [SecretBytes] {
        var taken: [ObjectIdentifier: SecretBytes] = [:]
        var secrets: [SecretBytes] = []
        var failure: PinVaultError?
        for (pin, parameter) in pins {
            guard let secret = taken[ObjectIdentifier(pin)] ?? pin.take() else {
                failure = failure ?? .pinConsumed
                continue
            }
            taken[ObjectIdentifier(pin)] = secret
            do throws(PinVaultError) {
                try ClientLimits.checkPin(secret, parameter: parameter, allowingEmpty: allowingEmpty)
            } catch {
                failure = failure ?? error
            }
            secrets.append(secret)
        }
        if let failure {
            for secret in secrets { secret.wipe() }
            throw failure
        }
        return secrets
    }
}
