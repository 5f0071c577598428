/// How failed PIN attempts are slowed down and ended (config `[lockout]`,
/// SECURITY.md, "The lockout").
public struct LockoutPolicy: Sendable, Equatable {
    /// The consecutive failure from which each further attempt must wait.
    public var throttleAfter: Int
    /// The wait after the `throttleAfter`-th failure, in seconds.
    public var throttleBaseSeconds: Int64
    /// The longest wait, in seconds.
    public var throttleMaxSeconds: Int64
    /// The consecutive failures that end the credential.
    public var maxAttempts: Int
    /// What ending the credential means.
    public var onMaxAttempts: OnMaxAttempts

    /// A policy; every parameter defaults to the documented default.
    public init(
        throttleAfter: Int = 5,
        throttleBaseSeconds: Int64 = 30,
        throttleMaxSeconds: Int64 = 3600,
        maxAttempts: Int = 10,
        onMaxAttempts: OnMaxAttempts = .block
    ) {
        self.throttleAfter = throttleAfter
        self.throttleBaseSeconds = throttleBaseSeconds
        self.throttleMaxSeconds = throttleMaxSeconds
        self.maxAttempts = maxAttempts
        self.onMaxAttempts = onMaxAttempts
    }

    /// The wrong PINs between two successes past which no admin may unblock the
    /// credential: twice `maxAttempts`, so that admins together get at most
    /// `maxAttempts` more guesses than the lockout gives anyone (SECURITY.md).
    public var maxWrongPinsSinceSuccess: Int {
        let (doubled, overflow) = max(maxAttempts, 0).multipliedReportingOverflow(by: 2)
        return overflow ? Int.max : doubled
    }

    /// The wait, in seconds, imposed after `failures` consecutive failures: 0 below
    /// `throttleAfter`; from the `throttleAfter`-th failure on, `throttleBaseSeconds`
    /// doubling per further failure, never more than `throttleMaxSeconds`. With the
    /// defaults: 1–4 → 0, 5 → 30, 6 → 60, 7 → 120, …, 12 and after → 3600.
    /// Never overflows, however large `failures` is; never negative.
    public func delay(afterFailures failures: Int) -> Int64 {
        guard failures >= max(throttleAfter, 1), throttleBaseSeconds > 0, throttleMaxSeconds > 0 else {
            return 0
        }
        let doublings = failures - max(throttleAfter, 1)
        // base << doublings stays within the cap only while base <= cap >> doublings.
        guard doublings < Int64.bitWidth - 1, throttleBaseSeconds <= throttleMaxSeconds >> doublings else {
            return throttleMaxSeconds
        }
        return throttleBaseSeconds << doublings
    }
}
