/// How every PinVault client tells an owner of the wrong PINs a right one cleared (the
/// CLI after a PIN, `pinvault agent` after an unlock), as `login` tells of failed
/// logins: the same words everywhere.
public enum FailedAttempts {
    /// "1 wrong PIN was tried since your last success", or nil when `count` is 0.
    public static func notice(_ count: Int) -> String? {
        guard count > 0 else { return nil }
        return count == 1
            ? "1 wrong PIN was tried since your last success"
            : "\(count) wrong PINs were tried since your last success"
    }
}
