/// One value of a parsed document, in a flat pre-order array.
///
/// An object node is followed by its members, each a key node (`.string`) then the
/// value's subtree; an array node by its elements' subtrees. `subtreeEnd` is the index
/// one past the node's last descendant, so siblings are found without recursion.
/// Strings keep only the byte range between their quotes: their contents are decoded on
/// demand, straight into the destination the caller chooses (a `SecretBytes` for a PIN).
public struct JSONNode: Equatable, Sendable {
    /// The JSON type of a node.
    public enum Kind: UInt8, Equatable, Sendable {
        /// `{…}`
        case object
        /// `[…]`
        case array
        /// `"…"`
        case string
        /// Any RFC 8259 number.
        case number
        /// `true` or `false`.
        case bool
        /// `null`.
        case null
    }

    /// The JSON type.
    public let kind: Kind
    /// For strings, the bytes between the quotes (still escaped); for numbers, the
    /// number's text; for other kinds, the whole token or container.
    public let range: Range<Int>
    /// Strings: whether `range` holds any backslash escape.
    public let hasEscapes: Bool
    /// Numbers: written without fraction or exponent. Booleans: the value.
    public let flag: Bool
    /// Objects: members; arrays: elements; otherwise 0.
    public internal(set) var childCount: Int
    /// Index one past this node's last descendant.
    public internal(set) var subtreeEnd: Int

    init(kind: Kind, range: Range<Int>, hasEscapes: Bool = false, flag: Bool = false, index: Int) {
        self.kind = kind
        self.range = range
        self.hasEscapes = hasEscapes
        self.flag = flag
        self.childCount = 0
        self.subtreeEnd = index + 1
    }
}
