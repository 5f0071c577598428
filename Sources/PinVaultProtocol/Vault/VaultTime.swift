/// An instant as the interface carries it: whole seconds since the Unix epoch, written
/// on the wire as RFC 3339 UTC with a `Z` (`2026-01-31T12:00:00Z`). The generated
/// models hold their times as this, so that the daemon needs no Foundation; the client
/// library gives it a `Date`.
public struct VaultTime: Hashable, Comparable, Sendable {
    /// Seconds since 1970-01-01T00:00:00Z.
    public var unixSeconds: Int64

    /// The instant `unixSeconds` after the epoch.
    public init(unixSeconds: Int64) {
        self.unixSeconds = unixSeconds
    }

    /// The wire form, `YYYY-MM-DDTHH:MM:SSZ`.
    public var rfc3339: String { RFC3339.string(fromUnixSeconds: unixSeconds) }

    public static func < (lhs: VaultTime, rhs: VaultTime) -> Bool {
        lhs.unixSeconds < rhs.unixSeconds
    }
}
