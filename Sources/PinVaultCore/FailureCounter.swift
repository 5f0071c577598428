/// The durable per-credential record of failed PIN attempts, as a pure state machine.
///
/// The daemon stores `failedAttempts` and `lockedUntil` with the credential and drives
/// one attempt as: check `gate(now:policy:)`; if open, durably write
/// `beginningAttempt(now:policy:)` — the record as if the PIN were wrong — *before*
/// running the KDF; then on a right PIN write `cleared`, on a wrong one keep the
/// record and act on `outcomeOfWrongPin(policy:)`. A crash or power cut between the
/// two writes leaves the attempt counted: no free guesses.
///
/// Two counts: `failedAttempts`, the consecutive wrong PINs the lockout schedule reads,
/// which an admin's `unblocking` clears; and `wrongPinsSinceSuccess`, which only a right
/// PIN clears, so that Unblock can never be turned into more guesses than
/// `LockoutPolicy.maxWrongPinsSinceSuccess` between two successes of the owner.
///
/// Times are seconds since the Unix epoch.
public struct FailureCounter: Sendable, Equatable {
    /// Consecutive wrong PINs (including an attempt begun but not finished).
    public var failedAttempts: Int
    /// No PIN may be tried before this time; nil when there is no wait.
    public var lockedUntil: Int64?
    /// Wrong PINs since the last right one (an attempt begun but not finished
    /// included), whatever Unblocks came between: what a success reports as
    /// `failedAttemptsCleared`.
    public var wrongPinsSinceSuccess: Int

    /// A counter with `failedAttempts` failures and an optional wait; the wrong PINs
    /// since the last success are the failures unless told.
    public init(failedAttempts: Int, lockedUntil: Int64? = nil, wrongPinsSinceSuccess: Int? = nil) {
        self.failedAttempts = failedAttempts
        self.lockedUntil = lockedUntil
        self.wrongPinsSinceSuccess = wrongPinsSinceSuccess ?? failedAttempts
    }

    /// No failures and no wait: a new credential, or one after a right PIN.
    public static let cleared = FailureCounter(failedAttempts: 0, lockedUntil: nil)

    /// Whether a PIN may be tried now.
    public enum Gate: Equatable, Sendable {
        /// Try it.
        case open
        /// Refuse it without running the KDF and without counting.
        case lockedOut(retryAfterSeconds: Int64)
        /// The credential is blocked until an admin unblocks it.
        case blocked
    }

    /// `blocked` once `failedAttempts` reaches `maxAttempts`; `lockedOut` while
    /// `now < lockedUntil` (with at least 1 second and at most `throttleMaxSeconds` to
    /// wait: `cappedToClock`); else `open`.
    public func gate(now: Int64, policy: LockoutPolicy) -> Gate {
        if failedAttempts >= policy.maxAttempts { return .blocked }
        if let lockedUntil = cappedToClock(now: now, policy: policy).lockedUntil, now < lockedUntil {
            return .lockedOut(retryAfterSeconds: max(lockedUntil - now, 1))
        }
        return .open
    }

    /// The counter with its wait ending no later than `throttleMaxSeconds` from `now`.
    /// No wait is ever set longer than that, so a later end means the wall clock was
    /// stepped back since (an RTC reset, an NTP correction) and would otherwise lengthen
    /// the wait by the step. Unchanged when the wait is within bounds.
    public func cappedToClock(now: Int64, policy: LockoutPolicy) -> FailureCounter {
        guard let lockedUntil else { return self }
        let (latest, overflow) = now.addingReportingOverflow(max(policy.throttleMaxSeconds, 0))
        guard !overflow, lockedUntil > latest else { return self }
        var capped = self
        capped.lockedUntil = latest
        return capped
    }

    /// The pessimistic record to write durably before the PIN is checked: one more
    /// failure, and the wait that failure would impose.
    public func beginningAttempt(now: Int64, policy: LockoutPolicy) -> FailureCounter {
        let failures = failedAttempts == Int.max ? Int.max : failedAttempts + 1
        let wrongPins = wrongPinsSinceSuccess == Int.max ? Int.max : wrongPinsSinceSuccess + 1
        let delay = policy.delay(afterFailures: failures)
        guard delay > 0 else { return FailureCounter(failedAttempts: failures, wrongPinsSinceSuccess: wrongPins) }
        let (until, overflow) = now.addingReportingOverflow(delay)
        return FailureCounter(failedAttempts: failures, lockedUntil: overflow ? Int64.max : until, wrongPinsSinceSuccess: wrongPins)
    }

    /// What an admin's Unblock does with this counter.
    public enum Unblocking: Equatable, Sendable {
        /// The credential is not blocked (active or throttled): nothing changes, so that
        /// Unblock is no reset of the count and the wait an admin may hand out.
        case notBlocked
        /// The counter to write: the lockout's count and wait cleared, the wrong PINs
        /// since the last success kept (the owner's next success reports them).
        case unblocked(FailureCounter)
        /// `wrongPins` since the last success reached
        /// `LockoutPolicy.maxWrongPinsSinceSuccess`: no Unblock revives it any more.
        case refused(wrongPins: Int)
    }

    /// Whether and how an admin may unblock the credential.
    public func unblocking(policy: LockoutPolicy) -> Unblocking {
        guard failedAttempts >= policy.maxAttempts else { return .notBlocked }
        guard wrongPinsSinceSuccess < policy.maxWrongPinsSinceSuccess else { return .refused(wrongPins: wrongPinsSinceSuccess) }
        return .unblocked(FailureCounter(failedAttempts: 0, lockedUntil: nil, wrongPinsSinceSuccess: wrongPinsSinceSuccess))
    }

    /// What a wrong PIN means for the caller.
    public enum Outcome: Equatable, Sendable {
        /// Try again, `remainingAttempts` more times at most.
        case wrongPin(remainingAttempts: Int)
        /// That was the last attempt; the credential is blocked.
        case blocked
        /// That was the last attempt; the credential must be deleted.
        case wiped
    }

    /// The outcome once the attempt begun with `beginningAttempt` turned out wrong
    /// (`self` is that pessimistic record).
    public func outcomeOfWrongPin(policy: LockoutPolicy) -> Outcome {
        guard failedAttempts >= policy.maxAttempts else {
            return .wrongPin(remainingAttempts: remainingAttempts(policy: policy))
        }
        switch policy.onMaxAttempts {
        case .block: return .blocked
        case .wipe: return .wiped
        }
    }

    /// Wrong PINs left before the credential is blocked or wiped; never negative.
    public func remainingAttempts(policy: LockoutPolicy) -> Int {
        let (left, overflow) = policy.maxAttempts.subtractingReportingOverflow(max(failedAttempts, 0))
        return overflow ? 0 : max(left, 0)
    }

    /// The credential's state as `List` reports it.
    public enum LockState: String, Sendable {
        /// A PIN may be tried.
        case active
        /// A PIN may be tried after `lockedUntil`.
        case throttled
        /// No PIN may be tried until an admin unblocks the credential.
        case blocked
    }

    /// `blocked`, `throttled` while a wait runs, else `active` — as `gate` decides.
    public func lockState(now: Int64, policy: LockoutPolicy) -> LockState {
        switch gate(now: now, policy: policy) {
        case .open: return .active
        case .lockedOut: return .throttled
        case .blocked: return .blocked
        }
    }
}
