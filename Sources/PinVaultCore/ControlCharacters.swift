/// The Unicode scalars that have no place in an account name, a label or a log line.
/// Each is invisible, and each breaks, reorders or hides the text around it, so a
/// peer could make a table, a terminal or a log line show something else than what
/// it holds ("alice\u{202E}nimda" shows as "aliceadmin").
///
/// Joiners stay allowed: U+200C (ZWNJ) and U+200D (ZWJ) are part of emoji sequences
/// and of Persian and Indic words, and change the look of a name, not its order.
public enum ControlCharacters {
    /// True for C0 controls, DEL and C1 controls (U+0000–U+001F, U+007F–U+009F); the
    /// bidi controls (U+061C, U+200E, U+200F, U+202A–U+202E, U+2066–U+2069); the line
    /// and paragraph separators (U+2028, U+2029); and U+FEFF (zero-width no-break
    /// space, the byte order mark).
    public static func contains(_ scalar: Unicode.Scalar) -> Bool {
        switch scalar.value {
        case 0x00...0x1F, 0x7F...0x9F: true
        case 0x061C, 0x200E, 0x200F, 0x202A...0x202E, 0x2066...0x2069: true
        case 0x2028, 0x2029: true
        case 0xFEFF: true
        default: false
        }
    }

    /// True when `text` holds any of them.
    public static func occur(in text: String) -> Bool {
        text.unicodeScalars.contains(where: contains)
    }
}
