import Foundation

/// The interface's text encodings, for `--json` output and the human tables alike:
/// RFC 3339 UTC times with `Z` and standard base64 with padding.
enum WireText {
    /// `2026-01-31T12:00:00Z` (whole seconds, as the daemon sends them).
    static func time(_ date: Date) -> String {
        var seconds = time_t(date.timeIntervalSince1970.rounded(.down))
        var parts = tm()
        guard gmtime_r(&seconds, &parts) != nil else { return String(seconds) }
        return String(
            format: "%04d-%02d-%02dT%02d:%02d:%02dZ",
            Int(parts.tm_year) + 1900, Int(parts.tm_mon) + 1, Int(parts.tm_mday),
            Int(parts.tm_hour), Int(parts.tm_min), Int(parts.tm_sec)
        )
    }

    /// Standard base64 with padding.
    static func base64(_ bytes: [UInt8]) -> String {
        Data(bytes).base64EncodedString()
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
