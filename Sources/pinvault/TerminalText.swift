/// Text from the daemon made safe to show on a terminal. A user name, a label, a key id
/// in an error or an error's name may hold anything a peer sent: C0 and C1 controls
/// (U+009B is CSI and U+009D OSC to xterm and VTE, so a name could rewrite the rows
/// above it or write the clipboard through OSC 52), bidi overrides and isolates that
/// reorder what a person reads, and line or paragraph separators.
enum TerminalText {
    /// `text` with every scalar of general category Cc, Cf, Zl or Zp written as
    /// `\u{XXXX}` (at least four uppercase hex digits), and every other scalar as is.
    /// Column widths are computed on this escaped text.
    static func escaped(_ text: String) -> String {
        guard text.unicodeScalars.contains(where: needsEscaping) else { return text }
        var result = ""
        result.reserveCapacity(text.utf8.count + 16)
        for scalar in text.unicodeScalars {
            if needsEscaping(scalar) {
                let hex = String(scalar.value, radix: 16, uppercase: true)
                result += "\\u{" + String(repeating: "0", count: max(4 - hex.count, 0)) + hex + "}"
            } else {
                result.unicodeScalars.append(scalar)
            }
        }
        return result
    }

    /// Whether `scalar` is a control (Cc), a format character such as a bidi control
    /// (Cf), or a line or paragraph separator (Zl, Zp).
    static func needsEscaping(_ scalar: Unicode.Scalar) -> Bool {
        switch scalar.properties.generalCategory {
        case .control, .format, .lineSeparator, .paragraphSeparator: true
        default: false
        }
    }
}
