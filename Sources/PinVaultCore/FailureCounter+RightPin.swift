/// What a right PIN does to the counter when other attempts on the credential are
/// counted and not settled yet: their Argon2id runs beside this one on other KDF
/// threads, and each was counted as a wrong PIN before its check began.
extension FailureCounter {
    /// The counter a right PIN leaves, and the wrong PINs it cleared (what the success
    /// answers as `failedAttemptsCleared`), when `stillPending` other attempts are
    /// counted in `self` and not settled (this attempt's own is counted and settled).
    ///
    /// A right PIN clears the wrong PINs settled before it — every one answered
    /// WrongPin so far, and these it reports — and its own attempt; the attempts still
    /// pending stay counted, as the wrong PINs they may turn out to be, for the lockout
    /// and for the owner's next success. So no wrong PIN is cleared without being
    /// reported, and none is reported twice; a wait stays only while the attempts
    /// still counted earn one.
    public func afterRightPin(stillPending: Int, policy: LockoutPolicy) -> (counter: FailureCounter, wrongPinsCleared: Int) {
        let kept = max(stillPending, 0)
        let failures = min(failedAttempts, kept)
        let counter = FailureCounter(
            failedAttempts: failures,
            lockedUntil: policy.delay(afterFailures: failures) > 0 ? lockedUntil : nil,
            wrongPinsSinceSuccess: min(wrongPinsSinceSuccess, kept)
        )
        return (counter, max(wrongPinsSinceSuccess - 1 - kept, 0))
    }
}
