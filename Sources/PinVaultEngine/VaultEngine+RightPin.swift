import PinVaultStore

/// What a right PIN does to the count it was checked under: the one rule every PIN
/// call's success writes (Authenticate, Unlock, ChangePin, BeginUnregister, Wipe),
/// with the attempts of other connections still in flight beside it.
extension VaultEngine {
    /// A counted attempt whose PIN was right: what a body needs to clear the count.
    struct RightPin: Sendable {
        let attempt: AttemptsInFlight.Attempt
    }

    /// `current` as a right PIN leaves it, and the wrong PINs it cleared: those
    /// answered so far, not those still in flight (`FailureCounter.afterRightPin`).
    /// Settles the right PIN's own attempt. Called inside the transaction that writes
    /// the success (it reads what is in flight against the row it writes).
    func clearing(_ current: CredentialRecord, by rightPin: RightPin) -> (record: CredentialRecord, failedAttemptsCleared: Int) {
        rightPin.attempt.settle()
        let stillPending = attemptsInFlight.count(on: current.keyId)
        let (counter, cleared) = counter(of: current).afterRightPin(stillPending: stillPending, policy: settings.lockout)
        var record = current
        record.set(counter)
        return (record, cleared)
    }
}
