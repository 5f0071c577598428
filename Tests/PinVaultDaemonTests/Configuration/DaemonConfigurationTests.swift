import PinVaultConfiguration
import Foundation
import Logging
@testable import PinVaultDaemon
import PinVaultCore
import PinVaultCrypto
import XCTest

final class DaemonConfigurationTests: XCTestCase {
    private var directory = ""

    override func setUpWithError() throws {
        directory = NSTemporaryDirectory() + "pinvault-config-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: directory + "/lists", withIntermediateDirectories: true)
    }

    override func tearDownWithError() throws {
        try? FileManager.default.removeItem(atPath: directory)
    }

    private func write(_ text: String, to name: String) throws -> String {
        let path = directory + "/" + name
        try Data(text.utf8).write(to: URL(fileURLWithPath: path))
        return path
    }

    private func parse(_ text: String) throws -> DaemonConfiguration {
        try DaemonConfiguration.parse(text, file: directory + "/pinvaultd.toml")
    }

    /// Asserts that `text` is refused with an error naming `key`, `line` and `reason`.
    private func assertRefused(
        _ text: String, key: String?, line: Int?, saying reason: String,
        file: StaticString = #filePath, testLine: UInt = #line
    ) {
        XCTAssertThrowsError(try parse(text), file: file, line: testLine) { error in
            guard let error = error as? ConfigurationError else {
                return XCTFail("not a ConfigurationError: \(error)", file: file, line: testLine)
            }
            XCTAssertEqual(error.file, directory + "/pinvaultd.toml", file: file, line: testLine)
            XCTAssertEqual(error.key, key, "\(error)", file: file, line: testLine)
            XCTAssertEqual(error.line, line, "\(error)", file: file, line: testLine)
            XCTAssertTrue(error.reason.contains(reason), "\(error)", file: file, line: testLine)
        }
    }

    // MARK: - Defaults and every key

    func testDefaults_matchTheDesign() {
        let defaults = DaemonConfiguration.defaults
        XCTAssertEqual(defaults.server.socketPath, "/run/pinvault/io.pinvault.Vault")
        XCTAssertEqual(defaults.server.socketMode, 0o666)
        XCTAssertEqual(defaults.server.maxMessageBytes, 65536)
        XCTAssertEqual(defaults.server.maxConnections, 4096)
        XCTAssertEqual(defaults.server.maxConnectionsPerUid, 1024)
        XCTAssertEqual(defaults.server.idleTimeoutSeconds, 60)
        XCTAssertNil(defaults.access.adminGroup)
        XCTAssertEqual(defaults.access.allowedGroups, [])
        XCTAssertNil(defaults.store.stateDirectory, "absent: $STATE_DIRECTORY, else /var/lib/pinvault")
        XCTAssertEqual(defaults.kdf.parameters, KDFParameters(opslimit: 3, memlimit: 64 << 20))
        XCTAssertEqual(defaults.kdf.maxParallel, 0)
        XCTAssertEqual(defaults.kdf.queueMax, 64)
        XCTAssertEqual(defaults.kdf.queuePerUid, 8)
        XCTAssertFalse(defaults.kdf.allowWeak)
        XCTAssertEqual(defaults.kdf.maximum, KDFParameters(opslimit: 16, memlimit: 1 << 30))
        XCTAssertEqual(defaults.policy, PinPolicy())
        XCTAssertEqual(defaults.lockout, LockoutPolicy())
        XCTAssertEqual(defaults.unregister.expirySeconds, 300)
        XCTAssertEqual(defaults.credentials.maxPerUser, 8)
        XCTAssertEqual(defaults.credentials.maxPerUid, 64)
        XCTAssertEqual(defaults.credentials.maxTotal, 100_000)
        XCTAssertNil(defaults.logLevel)
    }

    func testEmptyText_givesTheDefaults() throws {
        XCTAssertEqual(try parse(""), .defaults)
        XCTAssertEqual(try parse("[server]\n[kdf]\n"), .defaults)
    }

    func testEveryKey_isRead() throws {
        _ = try write("111111\n222222\n", to: "lists/pins.txt")
        let configuration = try parse("""
            log_level = "debug"
            [server]
            socket_path = "/tmp/pv.sock"
            socket_mode = "0660"
            max_message_bytes = 1_048_576
            max_connections = 100
            max_connections_per_uid = 10
            idle_timeout_seconds = 5
            [access]
            admin_group = "pinvault-admin"
            allowed_groups = ["users", "wheel"]
            [store]
            state_directory = "/srv/pinvault"
            [kdf]
            opslimit = 4
            memlimit_mib = 128
            max_parallel = 2
            queue_max = 10
            queue_per_uid = 3
            allow_weak = true
            [policy]
            min_length = 4
            max_length = 12
            digits_only = false
            max_identical_digits = 2
            allow_sequences = true
            deny_list = "lists/pins.txt"
            [lockout]
            throttle_after = 3
            throttle_base_seconds = 10
            throttle_max_seconds = 600
            max_attempts = 6
            on_max_attempts = "wipe"
            [unregister]
            expiry_seconds = 60
            [credentials]
            max_per_user = 2
            max_per_uid = 20
            """)
        XCTAssertEqual(configuration.logLevel, .debug)
        XCTAssertEqual(configuration.server.socketPath, "/tmp/pv.sock")
        XCTAssertEqual(configuration.server.socketMode, 0o660)
        XCTAssertEqual(configuration.server.maxMessageBytes, 1 << 20)
        XCTAssertEqual(configuration.server.maxConnections, 100)
        XCTAssertEqual(configuration.server.maxConnectionsPerUid, 10)
        XCTAssertEqual(configuration.server.idleTimeoutSeconds, 5)
        XCTAssertEqual(configuration.access.adminGroup, "pinvault-admin")
        XCTAssertEqual(configuration.access.allowedGroups, ["users", "wheel"])
        XCTAssertEqual(configuration.store.stateDirectory, "/srv/pinvault")
        XCTAssertEqual(configuration.kdf.parameters, KDFParameters(opslimit: 4, memlimit: 128 << 20))
        XCTAssertEqual(configuration.kdf.maxParallel, 2)
        XCTAssertEqual(configuration.kdf.queueMax, 10)
        XCTAssertEqual(configuration.kdf.queuePerUid, 3)
        XCTAssertTrue(configuration.kdf.allowWeak)
        XCTAssertEqual(
            configuration.policy,
            PinPolicy(minLength: 4, maxLength: 12, digitsOnly: false, maxIdenticalDigits: 2,
                      allowSequences: true, denyList: DenyList(entries: ["111111", "222222"]))
        )
        XCTAssertEqual(
            configuration.lockout,
            LockoutPolicy(throttleAfter: 3, throttleBaseSeconds: 10, throttleMaxSeconds: 600,
                          maxAttempts: 6, onMaxAttempts: .wipe)
        )
        XCTAssertEqual(configuration.unregister.expirySeconds, 60)
        XCTAssertEqual(configuration.credentials.maxPerUser, 2)
        XCTAssertEqual(configuration.credentials.maxPerUid, 20)
    }

    func testSocketMode_acceptsThreeOrFourOctalDigits() throws {
        XCTAssertEqual(try parse("[server]\nsocket_mode = \"600\"").server.socketMode, 0o600)
        XCTAssertEqual(try parse("[server]\nsocket_mode = '0000'").server.socketMode, 0)
    }

    func testEmptyAdminGroup_meansRootAlone() throws {
        XCTAssertNil(try parse("[access]\nadmin_group = \"\"").access.adminGroup)
    }

    func testEveryLogLevel_isAccepted() throws {
        for level in Logger.Level.allCases {
            XCTAssertEqual(try parse("log_level = \"\(level.rawValue)\"").logLevel, level)
        }
    }

    // MARK: - Unknown names and wrong types

    func testUnknownKey_isRefusedNamingItsSectionAndLine() {
        assertRefused("[server]\nmax_connections = 5\nsocket_pth = \"/x\"", key: "server.socket_pth", line: 3, saying: "unknown key")
        assertRefused("verbose = true", key: "verbose", line: 1, saying: "unknown key")
        assertRefused("[kdf]\nmemlimit = 8", key: "kdf.memlimit", line: 2, saying: "memlimit_mib")
    }

    func testUnknownSection_isRefusedWithItsLine() {
        assertRefused("[server]\n[logging]\nlevel = 1", key: nil, line: 2, saying: "unknown section [logging]")
    }

    func testWrongTypes_areRefused() {
        assertRefused("[server]\nmax_connections = \"256\"", key: "server.max_connections", line: 2, saying: "expected an integer, got a string")
        assertRefused("[kdf]\nallow_weak = 1", key: "kdf.allow_weak", line: 2, saying: "expected true or false, got an integer")
        assertRefused("[store]\nstate_directory = 5", key: "store.state_directory", line: 2, saying: "expected a string, got an integer")
        assertRefused("[access]\nallowed_groups = \"wheel\"", key: "access.allowed_groups", line: 2, saying: "expected an array of strings, got a string")
        assertRefused("[access]\nallowed_groups = [1, 2]", key: "access.allowed_groups", line: 2, saying: "got an array of integers")
        assertRefused("[policy]\nmin_length = [6]", key: "policy.min_length", line: 2, saying: "got an array")
        assertRefused("[server]\nsocket_mode = 438", key: "server.socket_mode", line: 2, saying: "octal string")
    }

    func testInvalidChoicesAndStrings_areRefused() {
        assertRefused("[lockout]\non_max_attempts = \"delete\"", key: "lockout.on_max_attempts", line: 2, saying: #"must be one of "block", "wipe""#)
        assertRefused("log_level = \"loud\"", key: "log_level", line: 1, saying: "must be one of")
        assertRefused("[server]\nsocket_mode = \"0888\"", key: "server.socket_mode", line: 2, saying: "octal mode")
        assertRefused("[server]\nsocket_mode = \"01777\"", key: "server.socket_mode", line: 2, saying: "octal mode")
        assertRefused("[server]\nsocket_path = \"run/pv.sock\"", key: "server.socket_path", line: 2, saying: "absolute path")
        assertRefused("[server]\nsocket_path = \"/\(String(repeating: "s", count: 107))\"", key: "server.socket_path", line: 2, saying: "at most 107 bytes")
        assertRefused("[store]\nstate_directory = \"\"", key: "store.state_directory", line: 2, saying: "absolute path")
        assertRefused("[store]\nstate_directory = \"/a\\u0000b\"", key: "store.state_directory", line: 2, saying: "NUL")
        assertRefused("[access]\nadmin_group = \"pin vault\"", key: "access.admin_group", line: 2, saying: "not a valid group name")
        assertRefused("[access]\nallowed_groups = [\"users\", \"\"]", key: "access.allowed_groups", line: 2, saying: "not a valid group name")
    }

    func testTOMLSyntaxErrors_nameTheFileAndLine() {
        assertRefused("[server]\n\nmax_connections = 1.5", key: nil, line: 3, saying: "floating-point numbers are not supported")
        XCTAssertThrowsError(try DaemonConfiguration.parse("[s\n", file: "/etc/pinvault/pinvaultd.toml")) { error in
            XCTAssertEqual(String(describing: error), "/etc/pinvault/pinvaultd.toml:1: expected ']' to close the section header")
        }
    }

    func testErrorDescription_namesFileLineKeyAndReason() {
        XCTAssertThrowsError(try DaemonConfiguration.parse("[server]\nmax_connections = 0", file: "/etc/pv.toml")) { error in
            XCTAssertEqual(
                String(describing: error),
                "/etc/pv.toml:2: server.max_connections: must be between 1 and 65536, got 0"
            )
        }
    }

    // MARK: - Ranges

    func testEveryNumber_outOfRange_isRefused() {
        let cases: [(section: String, key: String, low: Int64, high: Int64)] = [
            ("server", "max_message_bytes", 1023, 1 << 20 + 1),
            ("server", "max_connections", 0, 65537),
            ("server", "max_connections_per_uid", 0, 65537),
            ("server", "idle_timeout_seconds", 0, 86401),
            ("kdf", "opslimit", 0, 65),
            ("kdf", "memlimit_mib", 0, 16385),
            ("kdf", "memlimit_kib", 7, 16384 * 1024 + 1),
            ("kdf", "max_parallel", -1, 257),
            ("kdf", "queue_max", 0, 65537),
            ("kdf", "queue_per_uid", 0, 65537),
            ("policy", "min_length", 0, 257),
            ("policy", "max_length", 0, 257),
            ("policy", "max_identical_digits", 0, 257),
            ("lockout", "throttle_after", 0, 1001),
            ("lockout", "throttle_base_seconds", 0, 86401),
            ("lockout", "throttle_max_seconds", 0, 2_592_001),
            ("lockout", "max_attempts", 0, 1001),
            ("unregister", "expiry_seconds", 0, 86401),
            ("credentials", "max_per_user", 0, 1001),
            ("credentials", "max_per_uid", 0, 100_001),
        ]
        for (section, key, low, high) in cases {
            for value in [low, high] {
                assertRefused("[\(section)]\n\(key) = \(value)", key: "\(section).\(key)", line: 2, saying: "must be between")
            }
        }
    }

    func testRelatedLimits_areChecked() {
        assertRefused("[policy]\nmin_length = 10\nmax_length = 8", key: "policy.min_length", line: 2, saying: "must not exceed policy.max_length (8)")
        assertRefused("[policy]\nmax_length = 4", key: "policy.max_length", line: 2, saying: "policy.min_length (6) must not exceed")
        assertRefused("[server]\nmax_connections = 16", key: "server.max_connections", line: 2, saying: "max_connections_per_uid (1024) must not exceed")
        assertRefused("[kdf]\nqueue_per_uid = 65", key: "kdf.queue_per_uid", line: 2, saying: "must not exceed kdf.queue_max (64)")
        assertRefused("[lockout]\nthrottle_after = 11", key: "lockout.throttle_after", line: 2, saying: "must not exceed lockout.max_attempts (10)")
        assertRefused("[lockout]\nthrottle_max_seconds = 29", key: "lockout.throttle_max_seconds", line: 2, saying: "must be at least lockout.throttle_base_seconds (30)")
        assertRefused("[credentials]\nmax_per_uid = 4", key: "credentials.max_per_uid", line: 2, saying: "max_per_user (8) must not exceed")
    }

    func testLimitsAtTheirBounds_areAccepted() throws {
        let configuration = try parse("""
            [server]
            max_message_bytes = 1024
            max_connections = 1
            max_connections_per_uid = 1
            [policy]
            min_length = 256
            max_length = 256
            [lockout]
            throttle_after = 1000
            max_attempts = 1000
            """)
        XCTAssertEqual(configuration.server.maxMessageBytes, 1024)
        XCTAssertEqual(configuration.policy.minLength, 256)
        XCTAssertEqual(configuration.lockout.throttleAfter, 1000)
    }

    // MARK: - KDF

    func testKDFMaximum_isNeverBelowTheConfiguredCosts() throws {
        assertRefused("[kdf]\nopslimit = 20\nmax_opslimit = 19", key: "kdf.max_opslimit", line: 3, saying: "is below kdf.opslimit (20)")
        assertRefused("[kdf]\nmemlimit_mib = 2048\nmax_memlimit_mib = 1024", key: "kdf.max_memlimit_mib", line: 3, saying: "is below the configured memlimit (2048 MiB)")
        // Absent, the maximum follows costs configured above its default.
        let raised = try parse("[kdf]\nopslimit = 20\nmemlimit_mib = 2048")
        XCTAssertEqual(raised.kdf.maximum, KDFParameters(opslimit: 20, memlimit: 2048 << 20))
        XCTAssertEqual(try parse("[kdf]\nmax_opslimit = 4\nmax_memlimit_mib = 64").kdf.maximum, KDFParameters(opslimit: 4, memlimit: 64 << 20))
    }

    func testWeakKDF_withoutAllowWeak_isRefused() {
        assertRefused("[kdf]\nopslimit = 1", key: "kdf.opslimit", line: 2, saying: "below Argon2id's floor (opslimit 2, memlimit 16 MiB)")
        assertRefused("[kdf]\nmemlimit_mib = 15", key: "kdf.memlimit_mib", line: 2, saying: "allow_weak = true")
        assertRefused("[kdf]\nmemlimit_kib = 8", key: "kdf.memlimit_kib", line: 2, saying: "below Argon2id's floor")
    }

    func testWeakKDF_withAllowWeak_isAccepted() throws {
        let configuration = try parse("[kdf]\nopslimit = 1\nmemlimit_kib = 8\nallow_weak = true")
        XCTAssertEqual(configuration.kdf.parameters, KDFParameters(opslimit: 1, memlimit: 8192))
        XCTAssertTrue(configuration.kdf.allowWeak)
    }

    func testTheFloorItself_isNotWeak() throws {
        let configuration = try parse("[kdf]\nopslimit = 2\nmemlimit_mib = 16")
        XCTAssertEqual(configuration.kdf.parameters, KDFParameters.floor)
    }

    func testMemlimitInMiBAndKiB_together_areRefused() {
        assertRefused("[kdf]\nmemlimit_mib = 64\nmemlimit_kib = 65536", key: "kdf.memlimit_kib", line: 3, saying: "not both (memlimit_mib is on line 2)")
    }

    // MARK: - Deny list

    func testRelativeDenyList_isResolvedAgainstTheConfigurationDirectory() throws {
        _ = try write("# test list\n123123\n", to: "lists/pins.txt")
        let path = try write("[policy]\ndeny_list = \"lists/pins.txt\"\n", to: "pinvaultd.toml")
        let configuration = try DaemonConfiguration.load(path: path)
        XCTAssertEqual(configuration.policy.denyList, DenyList(entries: ["123123"]))
    }

    func testAbsoluteDenyList_isUsedAsGiven() throws {
        let list = try write("654654\n", to: "lists/absolute.txt")
        let configuration = try DaemonConfiguration.parse("[policy]\ndeny_list = \"\(list)\"", file: "/nonexistent/pv.toml")
        XCTAssertEqual(configuration.policy.denyList.count, 1)
    }

    func testAbsentOrEmptyDenyList_meansNoList() throws {
        XCTAssertEqual(try parse("[policy]\ndeny_list = \"\"").policy.denyList, .empty)
        XCTAssertEqual(try parse("[policy]").policy.denyList, .empty)
    }

    func testMissingDenyList_isRefusedNamingTheResolvedPath() {
        assertRefused("[policy]\n\ndeny_list = \"absent.txt\"", key: "policy.deny_list", line: 3, saying: directory + "/absent.txt")
    }

    func testDirectoryOfAFile() {
        XCTAssertEqual(DaemonConfiguration.directory(of: "/etc/pinvault/pinvaultd.toml"), "/etc/pinvault")
        XCTAssertEqual(DaemonConfiguration.directory(of: "/pinvaultd.toml"), "/")
        XCTAssertEqual(DaemonConfiguration.directory(of: "pinvaultd.toml"), ".")
        XCTAssertEqual(DaemonConfiguration.directory(of: "config/pinvaultd.toml"), "config")
    }

    // MARK: - Loading files

    func testLoad_ofAMissingFile_namesTheFileAndReason() {
        let path = directory + "/absent.toml"
        XCTAssertThrowsError(try DaemonConfiguration.load(path: path)) { error in
            XCTAssertEqual((error as? ConfigurationError)?.file, path)
            XCTAssertTrue(String(describing: error).contains("No such file"), "\(error)")
        }
    }

    func testLoad_ofADirectory_isRefused() {
        XCTAssertThrowsError(try DaemonConfiguration.load(path: directory)) { error in
            XCTAssertEqual((error as? ConfigurationError)?.reason, "not a regular file")
        }
    }

    func testLoad_ofInvalidUTF8_namesTheLine() throws {
        let path = directory + "/bad.toml"
        try Data(Array("[server]\n# caf".utf8) + [0xE9] + Array("\n".utf8)).write(to: URL(fileURLWithPath: path))
        XCTAssertThrowsError(try DaemonConfiguration.load(path: path)) { error in
            XCTAssertEqual(error as? ConfigurationError, ConfigurationError(file: path, line: 2, reason: "not valid UTF-8"))
        }
    }
}
