import PinVaultProtocol

extension PinPolicy {
    /// The public form of a decoded `PinPolicy` object.
    init(_ wire: VaultPinPolicy) {
        self.init(
            minLength: Int(wire.minLength),
            maxLength: Int(wire.maxLength),
            digitsOnly: wire.digitsOnly,
            maxIdenticalDigits: Int(wire.maxIdenticalDigits),
            allowSequences: wire.allowSequences,
            denyListSize: Int(wire.denyListSize),
            throttleAfter: Int(wire.throttleAfter),
            maxAttempts: Int(wire.maxAttempts),
            onMaxAttempts: wire.onMaxAttempts == .wipe ? .wipe : .block
        )
    }
}
