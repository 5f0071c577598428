import CSodium

/// Comparisons whose time does not depend on where the inputs differ.
public enum ConstantTime {
    /// `sodium_memcmp` equality; false when the lengths differ (lengths are compared
    /// openly: a length is not the secret).
    public static func equals(_ a: [UInt8], _ b: [UInt8]) -> Bool {
        guard a.count == b.count else { return false }
        guard !a.isEmpty else { return true }
        return sodium_memcmp(a, b, a.count) == 0
    }
}
