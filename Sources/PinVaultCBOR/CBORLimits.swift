/// What the decoder reads at most. Each is checked before anything is allocated for it.
public enum CBORLimits {
    /// The largest message, in bytes: the largest CTAPHID message (an initialization
    /// packet and 128 continuation packets of 64-byte reports: 57 + 128 × 59).
    public static let maximumMessageSize = 7609

    /// How deep arrays and maps nest. CTAP's deepest request is three levels (the
    /// request map, a list, a credential descriptor map; a COSE key inside a map) and
    /// its extensions one more; eight leaves room and bounds the recursion.
    public static let maximumDepth = 8
}
