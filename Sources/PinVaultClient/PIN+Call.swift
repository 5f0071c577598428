import PinVaultCrypto
import PinVaultProtocol

extension PIN {
    /// Takes the bytes of every PIN a call carries, each with the parameter it is sent
    /// as. All or nothing: when one PIN was consumed before (`.pinConsumed`) or is longer
    /// than the wire allows (`.invalidParameter`), every PIN passed is wiped anyway, as a
    /// call that fails before it is sent wipes its PINs. The same `PIN` object passed
    /// twice (the same current and new PIN) is taken once and sent twice.
    static func take(_ pins: [(pin: PIN, parameter: String)]) throws(PinVaultError) -> [SecretBytes] {
        var taken: [ObjectIdentifier: SecretBytes] = [:]
        var secrets: [SecretBytes] = []
        var failure: PinVaultError?
        for (pin, parameter) in pins {
            guard let secret = taken[ObjectIdentifier(pin)] ?? pin.take() else {
                failure = failure ?? .pinConsumed
                continue
            }
            taken[ObjectIdentifier(pin)] = secret
            if !ProtocolLimits.pinBytes.contains(secret.count) {
                failure = failure ?? .invalidParameter(parameter)
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
