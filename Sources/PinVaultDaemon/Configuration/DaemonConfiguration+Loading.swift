import PinVaultConfiguration
import Logging

extension DaemonConfiguration {
    /// The sections a configuration may have, in the order they are read.
    static let sectionNames = [
        "server", "access", "store", "kdf", "policy", "lockout", "unregister", "credentials", "sessions", "ssh_agent",
        "webauthn",
    ]

    /// Keys allowed before the first section.
    static let rootKeys = ["log_level"]

    /// Reads and checks the configuration file at `path`.
    public static func load(path: String) throws(ConfigurationError) -> DaemonConfiguration {
        try parse(ConfigurationFile.text(at: path), file: path)
    }

    /// Checks a configuration given as text. `file` names it in errors, and relative
    /// paths in it (`policy.deny_list`) are resolved against `file`'s directory.
    ///
    /// An unknown section or key, a wrong type, a value out of range, or TOML outside
    /// the supported subset is an error; absent keys keep their defaults.
    public static func parse(_ text: String, file: String) throws(ConfigurationError) -> DaemonConfiguration {
        let document: TOMLDocument
        do {
            document = try TOMLReader.parse(text)
        } catch {
            throw ConfigurationError(file: file, line: error.line, reason: error.message)
        }
        for table in document.sections where !sectionNames.contains(table.name) {
            throw ConfigurationError(
                file: file, line: table.line,
                reason: "unknown section [\(table.name)]; known sections: \(sectionNames.joined(separator: ", "))"
            )
        }
        func section(_ name: String) -> ConfigurationSection {
            ConfigurationSection(file: file, table: document[section: name] ?? TOMLTable(name: name, line: 0))
        }

        var configuration = DaemonConfiguration()
        configuration.logLevel = try logLevel(ConfigurationSection(file: file, table: document.root))
        configuration.server = try Server(section("server"))
        configuration.access = try Access(section("access"))
        configuration.store = try Store(section("store"))
        configuration.kdf = try KDF(section("kdf"))
        configuration.policy = try policy(section("policy"), directory: directory(of: file))
        configuration.lockout = try lockout(section("lockout"))
        configuration.unregister = try Unregister(section("unregister"))
        configuration.credentials = try Credentials(section("credentials"))
        configuration.sessions = try Sessions(section("sessions"))
        configuration.sshAgent = try SSHAgent(section("ssh_agent"))
        configuration.webAuthn = try WebAuthn(section("webauthn"))
        return configuration
    }

    /// Top-level `log_level`: one of swift-log's level names.
    private static func logLevel(_ root: ConfigurationSection) throws(ConfigurationError) -> Logger.Level? {
        try root.refuseUnknownKeys(rootKeys)
        guard let name = try root.choice("log_level", of: Logger.Level.allCases.map(\.rawValue)) else { return nil }
        return Logger.Level(rawValue: name)
    }

    /// The directory part of `file`: "." for a bare name, "/" for a file in the root.
    static func directory(of file: String) -> String {
        guard let slash = file.lastIndex(of: "/") else { return "." }
        return slash == file.startIndex ? "/" : String(file[..<slash])
    }
}
