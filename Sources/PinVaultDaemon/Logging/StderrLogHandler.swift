import Glibc
import Logging
import PinVaultCore

/// swift-log to stderr, one `write(2)` per line. Under systemd (`JOURNAL_STREAM` set)
/// each line starts with its syslog priority (`<6>`), which journald turns into the
/// entry's priority; otherwise lines carry a UTC timestamp and the level name.
/// Control characters in messages and metadata (C0, DEL, C1, bidi controls, line and
/// paragraph separators, U+FEFF: `ControlCharacters`) are escaped, so no peer-supplied
/// text can forge a log line or make one read backwards.
public struct StderrLogHandler: LogHandler {
    public var logLevel: Logger.Level
    public var metadata: Logger.Metadata = [:]
    private let label: String
    private let journal: Bool

    public init(label: String, level: Logger.Level, journal: Bool) {
        self.label = label
        self.logLevel = level
        self.journal = journal
    }

    /// True when stderr is connected to the journal.
    public static var stderrIsJournal: Bool { getenv("JOURNAL_STREAM") != nil }

    public subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { metadata[key] }
        set { metadata[key] = newValue }
    }

    public func log(event: LogEvent) {
        var text = journal ? "<\(Self.priority(event.level))>" : "\(Self.timestamp()) \(event.level.rawValue.uppercased()) "
        text += label == "pinvaultd" ? "" : "\(label): "
        text += Self.escaped(event.message.description)
        let merged = metadata.merging(event.metadata ?? [:]) { _, new in new }
        for key in merged.keys.sorted() {
            if let value = merged[key] {
                text += " \(Self.escaped(key))=\(Self.escaped(value.description))"
            }
        }
        text += "\n"
        var bytes = Array(text.utf8)
        bytes.withUnsafeBytes { _ = write(STDERR_FILENO, $0.baseAddress, $0.count) }
        bytes.removeAll()
    }

    static func priority(_ level: Logger.Level) -> Int {
        switch level {
        case .trace, .debug: 7
        case .info: 6
        case .notice: 5
        case .warning: 4
        case .error: 3
        case .critical: 2
        }
    }

    /// `text` with every one of the `ControlCharacters` made visible: `\n`, `\t`, `\r`,
    /// `\x1b` below U+0100, `\u202e` above; everything else as it is.
    static func escaped(_ text: String) -> String {
        guard ControlCharacters.occur(in: text) else { return text }
        var out = ""
        for scalar in text.unicodeScalars {
            switch scalar {
            case "\n": out += "\\n"
            case "\t": out += "\\t"
            case "\r": out += "\\r"
            case _ where ControlCharacters.contains(scalar):
                let hex = String(scalar.value, radix: 16)
                out += scalar.value < 0x100
                    ? "\\x" + String(repeating: "0", count: 2 - hex.count) + hex
                    : "\\u" + String(repeating: "0", count: 4 - hex.count) + hex
            default: out.unicodeScalars.append(scalar)
            }
        }
        return out
    }

    private static func timestamp() -> String {
        var now = time(nil)
        var parts = tm()
        gmtime_r(&now, &parts)
        func two(_ value: Int32) -> String { value < 10 ? "0\(value)" : "\(value)" }
        return "\(parts.tm_year + 1900)-\(two(parts.tm_mon + 1))-\(two(parts.tm_mday))T"
            + "\(two(parts.tm_hour)):\(two(parts.tm_min)):\(two(parts.tm_sec))Z"
    }
}
