import FoundationEssentials
import PinVaultProtocol

/// The interface's text encodings, for `--json` output and the human tables alike:
/// RFC 3339 UTC times with `Z` and standard base64 with padding — the protocol's own
/// encoders, so that the CLI prints exactly what the daemon sends.
enum WireText {
    /// `2026-01-31T12:00:00Z` (whole seconds, as the daemon sends them).
    static func time(_ date: Date) -> String {
        RFC3339.string(fromUnixSeconds: Int64(date.timeIntervalSince1970.rounded(.down)))
    }

    /// The same, of a time a reply carried.
    static func time(_ time: VaultTime) -> String {
        time.rfc3339
    }

    /// Standard base64 with padding.
    static func base64(_ bytes: [UInt8]) -> String {
        Base64.encodedString(bytes)
    }

    /// Whole seconds of `duration`, rounded up (a wait is never shown shorter than it is).
    static func seconds(_ duration: Duration) -> Int {
        let (seconds, attoseconds) = duration.components
        return Int(seconds) + (attoseconds > 0 ? 1 : 0)
    }

    /// Whole milliseconds of `duration`, rounded up.
    static func milliseconds(_ duration: Duration) -> Int {
        let (seconds, attoseconds) = duration.components
        let (whole, rest) = attoseconds.quotientAndRemainder(dividingBy: 1_000_000_000_000_000)
        return Int(seconds) * 1000 + Int(whole) + (rest > 0 ? 1 : 0)
    }
}
