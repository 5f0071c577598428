import Foundation
import Glibc
import PinVaultTestKit
import XCTest

/// `make install DESTDIR=…` lays out a working system: the installed pinvaultd with
/// the installed configuration (paths overridden by flags) serves, reads the
/// installed deny list, and takes a pepper sealed by the installed seal script.
final class InstallTests: XCTestCase {
    override class func tearDown() { Installation.removeShared() }

    func testInstall_placesEveryFile() throws {
        let installation = try Installation.shared()
        let destination = installation.destination
        for path in ["/usr/local/bin/pinvaultd", "/usr/local/bin/pinvault", "/usr/local/sbin/pinvault-seal-pepper",
                     "/usr/local/sbin/pinvault-uhid"] {
            XCTAssertTrue(FileManager.default.isExecutableFile(atPath: destination + path), path)
        }
        for path in ["/usr/local/lib/systemd/system/pinvaultd.service", "/usr/local/lib/systemd/system/pinvaultd.socket",
                     "/usr/local/lib/systemd/system/pinvault-uhid.service", "/usr/local/share/man/man8/pinvault-uhid.8",
                     "/usr/local/lib/sysusers.d/pinvault.conf", "/etc/pinvault/pinvaultd.toml",
                     "/etc/pinvault/deny-list.txt", "/usr/local/share/doc/pinvault/SECURITY.md",
                     "/usr/local/share/doc/pinvault/OPERATIONS.md", "/usr/local/share/varlink/io.pinvault.Vault.varlink",
                     "/usr/local/share/man/man8/pinvaultd.8", "/usr/local/share/man/man1/pinvault.1",
                     "/usr/local/share/man/man5/pinvaultd.toml.5", "/usr/local/share/man/man8/pinvault-seal-pepper.8"] {
            XCTAssertTrue(FileManager.default.fileExists(atPath: destination + path), path)
        }
        // The shell completions, each naming the commands (bash's also parses).
        for path in ["/usr/local/share/bash-completion/completions/pinvault", "/usr/local/share/zsh/vendor-completions/_pinvault",
                     "/usr/local/share/fish/vendor_completions.d/pinvault.fish"] {
            let script = (try? String(contentsOfFile: destination + path, encoding: .utf8)) ?? ""
            XCTAssertTrue(script.contains("change-pin") && script.contains("ssh-cert"), "\(path): \(script.prefix(200))")
        }
        let bash = try Subprocess.run("/bin/bash", ["-n", destination + "/usr/local/share/bash-completion/completions/pinvault"])
        XCTAssertEqual(bash.status, 0, bash.description)
        let sourced = (try? String(contentsOfFile: destination + "/usr/local/share/bash-completion/completions/pinvault", encoding: .utf8)) ?? ""
        XCTAssertFalse(sourced.hasPrefix("#!"), "bash sources completions: no #! line (lintian)")
        let shipped = try String(contentsOfFile: TestDaemon.repositoryRoot + "/config/pinvaultd.toml", encoding: .utf8)
        XCTAssertEqual(try String(contentsOfFile: installation.configPath, encoding: .utf8), shipped)
        // The socket checks the pepper with the installed script, at the unit's path.
        let socket = try String(contentsOfFile: destination + "/usr/local/lib/systemd/system/pinvaultd.socket", encoding: .utf8)
        XCTAssertTrue(socket.contains("\nExecStartPre=/usr/local/sbin/pinvault-seal-pepper --check --output=/etc/credstore.encrypted/pinvault.pepper\n"), socket)
    }

    /// The PAM module under /usr, where trixie's libpam-modules puts pam_unix.so (and
    /// bookworm's merged /usr reaches it as /lib/<multiarch>/security), whatever PREFIX
    /// is; the pam-auth-update profile, off by default; its man page and guide.
    func testInstall_placesThePAMModule_inTheMultiarchSecurityDirectory_andItsProfile() throws {
        let installation = try Installation.shared()
        let destination = installation.destination
        let multiarch = try Subprocess.run("/usr/bin/dpkg-architecture", ["-qDEB_HOST_MULTIARCH"])
        XCTAssertEqual(multiarch.status, 0, multiarch.description)
        let module = destination + "/usr/lib/" + multiarch.standardOutput.trimmingCharacters(in: .whitespacesAndNewlines)
            + "/security/pam_pinvault.so"
        XCTAssertTrue(FileManager.default.fileExists(atPath: module), module)
        let mode = try FileManager.default.attributesOfItem(atPath: module)[.posixPermissions] as? Int
        XCTAssertEqual(mode, 0o644, "as pam_unix.so")
        let exported = try Subprocess.run("/usr/bin/nm", ["-D", "--defined-only", module])
        let symbols = exported.standardOutput.split(separator: "\n").compactMap { $0.split(separator: " ").last.map(String.init) }
        XCTAssertEqual(Set(symbols), ["pam_sm_authenticate", "pam_sm_setcred", "pam_sm_acct_mgmt", "pam_sm_open_session",
                                      "pam_sm_close_session", "pam_sm_chauthtok"], exported.description)
        let linked = try Subprocess.run("/usr/bin/ldd", [module])
        XCTAssertFalse(linked.standardOutput.contains("swift"), "no Swift runtime in sudo, sshd or login: \(linked)")

        let profile = try String(contentsOfFile: destination + "/usr/share/pam-configs/pinvault", encoding: .utf8)
        XCTAssertTrue(profile.contains("\nDefault: no\n"), profile)
        XCTAssertTrue(profile.contains("pam_pinvault.so"), profile)
        for path in ["/usr/local/share/man/man8/pam_pinvault.8", "/usr/local/share/doc/pinvault/PAM.md"] {
            XCTAssertTrue(FileManager.default.fileExists(atPath: destination + path), path)
        }
    }

    func testInstalledDaemon_withInstalledConfiguration_answersGetPolicy() throws {
        let installation = try Installation.shared()
        let daemon = try TestDaemon.installed(installation)
        try daemon.start()
        let reply = try daemon.connect().succeeding("GetPolicy")
        let policy = try XCTUnwrap(reply.object("policy"), reply.description)
        XCTAssertEqual(policy["minLength"] as? Int, 6)
        XCTAssertEqual(policy["throttleAfter"] as? Int, 5)
        XCTAssertEqual(policy["maxAttempts"] as? Int, 10)
        XCTAssertEqual(policy["onMaxAttempts"] as? String, "block")
        // The installed deny list, found relative to the installed configuration.
        XCTAssertGreaterThan(policy["denyListSize"] as? Int ?? 0, 1000, reply.description)
        XCTAssertEqual(try daemon.stop(), 0, daemon.log)
    }

    /// The unit's LimitMEMLOCK= covers `max_connections` connections that each hold a
    /// full frame in locked memory (measured through VmLck, so it also proves that
    /// sodium_mlock succeeded for every one of them), each with a PIN in flight (one
    /// page), plus the one buffer growing at a time (the event loop is one thread: the
    /// old frame is freed as soon as it is copied).
    func testLockedMemory_perFullConnection_fitsTheUnitsLimitMEMLOCK() throws {
        let installation = try Installation.shared()
        let daemon = try TestDaemon.installed(installation)
        try daemon.start()
        // The baseline, once the daemon has closed the connection `start` probed it with:
        // two round trips on a connection of ours are two turns of its loop, and the
        // probe's end of stream was ready before the first (level-triggered epoll), so
        // it is handled by the end of that turn. Ours stays open: it is in both figures.
        let settled = try daemon.connect()
        for _ in 0..<2 { XCTAssertNil(try settled.vault("GetPolicy").error) }
        let baseline = try daemon.memory().lockedKiB
        let connections = 24  // under max_connections_per_uid (32)
        let frame = Array("{\"method\":\"io.pinvault.Vault.GetPolicy\",\"parameters\":{\"x\":\"".utf8)
            + [UInt8](repeating: UInt8(ascii: "7"), count: 64_000)
        var clients: [VarlinkClient] = []
        for _ in 0..<connections {
            let client = try daemon.connect()
            try client.send(raw: frame)
            clients.append(client)
        }
        // VmLck is read once the daemon has read every byte sent: then each frame is in
        // its connection's buffer, grown and locked (`unreadByPeer`: SIOCOUTQ).
        let deadline = Date().addingTimeInterval(120)
        var unread = clients.map(\.unreadByPeer)
        while unread.contains(where: { $0 != 0 }) && Date() < deadline {
            usleep(10_000)
            unread = clients.map(\.unreadByPeer)
        }
        XCTAssertEqual(unread.filter { $0 != 0 }, [], "the daemon never read every frame (bytes left unread per connection)")
        let locked = try daemon.memory().lockedKiB
        let perConnection = Double(locked - baseline) / Double(connections)
        XCTAssertGreaterThanOrEqual(perConnection, 64, "frames not locked: VmLck \(baseline) → \(locked) KiB")
        XCTAssertLessThanOrEqual(perConnection, 72, "more locked per connection than expected")

        let unit = try String(contentsOfFile: installation.servicePath, encoding: .utf8)
        let limitLine = try XCTUnwrap(unit.split(separator: "\n").first { $0.hasPrefix("LimitMEMLOCK=") })
        let limitText = limitLine.dropFirst("LimitMEMLOCK=".count)
        XCTAssertTrue(limitText.hasSuffix("M"), "expected LimitMEMLOCK in MiB, got \(limitText)")
        let limitKiB = (Double(limitText.dropLast()) ?? 0) * 1024
        let maxConnections = 4096.0  // server.max_connections' default
        XCTAssertLessThanOrEqual(maxConnections * (perConnection + 4) + perConnection, limitKiB,
                                 "LimitMEMLOCK leaves no room for a full frame and a PIN per connection")
        clients.removeAll()
        settled.close()
        XCTAssertEqual(try daemon.stop(), 0, daemon.log)
    }

    func testSealedPepper_fromSystemdCreds_isLoadedFromTheCredentialsDirectory() throws {
        guard let creds = ["/usr/bin/systemd-creds", "/bin/systemd-creds"].first(where: {
            FileManager.default.isExecutableFile(atPath: $0)
        }) else { throw XCTSkip("systemd-creds is not installed") }
        let installation = try Installation.shared()
        let daemon = try TestDaemon.installed(installation)
        let scratch = try daemon.scratch()
        let sealed = scratch + "/credstore/pinvault.pepper"
        let credentials = scratch + "/credentials"
        // A scratch host key instead of /var/lib/systemd/credential.secret.
        var environment = ProcessInfo.processInfo.environment
        environment["SYSTEMD_CREDENTIAL_SECRET"] = scratch + "/credential.secret"
        let seal = try Subprocess.run(installation.sealScript, [
            "--with-key=host", "--state-directory=\(daemon.stateDirectory)", "--output=\(sealed)",
        ], environment: environment)
        XCTAssertEqual(seal.status, 0, seal.description)
        XCTAssertTrue(seal.standardOutput.contains("sealed a new pepper"), seal.description)
        XCTAssertEqual(mkdir(credentials, 0o700), 0)
        let decrypt = try Subprocess.run(creds, ["decrypt", "--name=pinvault.pepper", sealed, credentials + "/pinvault.pepper"],
                                         environment: environment)
        XCTAssertEqual(decrypt.status, 0, decrypt.description)

        try daemon.start(environment: ["CREDENTIALS_DIRECTORY": credentials])
        XCTAssertNil(try daemon.connect().vault("GetPolicy").error)
        XCTAssertTrue(daemon.log.contains("source=credentials"), daemon.log)
        XCTAssertFalse(FileManager.default.fileExists(atPath: daemon.stateDirectory + "/pepper"),
                       "a plaintext pepper was made although the credential was there")
        XCTAssertEqual(try daemon.stop(), 0, daemon.log)

        let again = try Subprocess.run(installation.sealScript, ["--output=\(sealed)"], environment: environment)
        XCTAssertEqual(again.status, 0, again.description)
        XCTAssertTrue(again.standardOutput.contains("nothing to do"), "the seal script must never replace a pepper")
    }

    func testReinstall_keepsAnEditedConfigurationAndDenyList_andPutsTheNewDefaultsBeside() throws {
        let destination = try Installation.makeDirectory(prefix: "pinvault-reinstall")
        defer { try? FileManager.default.removeItem(atPath: destination) }
        let arguments = ["install", "DESTDIR=\(destination)", "CREDSTORE=/srv/credstore",
                         "INSTALL_FROM=\(Installation.builtBinaries)"]
        XCTAssertEqual(try Installation.make(arguments).status, 0)
        let configuration = destination + "/etc/pinvault"
        let edited = "# edited by the operator\n"
        for file in ["pinvaultd.toml", "deny-list.txt"] {
            try edited.write(toFile: configuration + "/" + file, atomically: true, encoding: .utf8)
        }

        let again = try Installation.make(arguments)
        XCTAssertEqual(again.status, 0, again.description)
        for file in ["pinvaultd.toml", "deny-list.txt"] {
            XCTAssertEqual(try String(contentsOfFile: configuration + "/" + file, encoding: .utf8), edited, file)
            let shipped = try String(contentsOfFile: TestDaemon.repositoryRoot + "/config/" + file, encoding: .utf8)
            XCTAssertEqual(try String(contentsOfFile: configuration + "/" + file + ".default", encoding: .utf8), shipped, file)
        }
        let unit = try String(contentsOfFile: destination + "/usr/local/lib/systemd/system/pinvaultd.service", encoding: .utf8)
        XCTAssertTrue(unit.contains("LoadCredentialEncrypted=pinvault.pepper:/srv/credstore/pinvault.pepper\n"), unit)
    }

    func testUninstall_keepsConfigurationUntilPurged() throws {
        let destination = try Installation.makeDirectory(prefix: "pinvault-uninstall")
        defer { try? FileManager.default.removeItem(atPath: destination) }
        let install = try Installation.make(["install", "DESTDIR=\(destination)", "INSTALL_FROM=\(Installation.builtBinaries)"])
        XCTAssertEqual(install.status, 0, install.description)
        XCTAssertEqual(mkdir(destination + "/var", 0o755), 0)
        XCTAssertEqual(mkdir(destination + "/var/lib", 0o755), 0)
        XCTAssertEqual(mkdir(destination + "/var/lib/pinvault", 0o700), 0)

        let uninstall = try Installation.make(["uninstall", "DESTDIR=\(destination)"])
        XCTAssertEqual(uninstall.status, 0, uninstall.description)
        XCTAssertFalse(FileManager.default.fileExists(atPath: destination + "/usr/local/bin/pinvaultd"))
        XCTAssertFalse(FileManager.default.fileExists(atPath: destination + "/usr/local/lib/systemd/system/pinvaultd.service"))
        XCTAssertFalse(FileManager.default.fileExists(atPath: destination + "/usr/share/pam-configs/pinvault"))
        XCTAssertFalse(FileManager.default.fileExists(atPath: destination + "/usr/local/share/man/man8/pam_pinvault.8"))
        XCTAssertFalse(FileManager.default.fileExists(atPath: destination + "/usr/local/share/man/man8/pinvaultd.8"))
        XCTAssertFalse(FileManager.default.fileExists(atPath: destination + "/usr/local/share/varlink/io.pinvault.Vault.varlink"))
        XCTAssertFalse(FileManager.default.fileExists(atPath: destination + "/usr/local/share/bash-completion/completions/pinvault"))
        XCTAssertTrue(FileManager.default.fileExists(atPath: destination + "/etc/pinvault/pinvaultd.toml"))
        XCTAssertTrue(FileManager.default.fileExists(atPath: destination + "/var/lib/pinvault"))

        let purge = try Installation.make(["uninstall", "DESTDIR=\(destination)", "PURGE=yes"])
        XCTAssertEqual(purge.status, 0, purge.description)
        XCTAssertFalse(FileManager.default.fileExists(atPath: destination + "/etc/pinvault"))
        XCTAssertFalse(FileManager.default.fileExists(atPath: destination + "/var/lib/pinvault"))
    }
}
