import PinVaultDoor

/// One kind of socket pinvaultd serves. A door is one module (its `MessageHandler`) and
/// one entry in `DoorRegistry.doors`: its name, where it listens, and its handler over the
/// assembled vault.
struct DoorEntry: Sendable {
    /// The door's name: in logs, and as the `FileDescriptorName=` systemd gives its socket
    /// when a socket unit of its own passes it.
    let name: String
    /// The setting that places it, for messages (`ssh_agent.socket_path`).
    let setting: String
    /// Where it listens without socket activation, flags applied; "" when it is off.
    let path: @Sendable (DaemonConfiguration) -> String
    /// The path the shipped pinvaultd.socket binds for it: one socket unit names all its
    /// sockets alike, so an inherited socket not named after a door is told apart by path.
    let shippedPath: String
    /// Its handler over the vault.
    let handler: @Sendable (VaultAssembly) -> any MessageHandler
}

/// The doors, in the order their sockets are bound: Varlink last, so that once it
/// accepts a connection every socket is bound (what a script or test waits for).
enum DoorRegistry {
    static let varlink = DoorEntry(
        name: "varlink", setting: "server.socket_path", path: { $0.server.socketPath },
        shippedPath: DaemonConfiguration.Server().socketPath, handler: { $0.varlink }
    )

    static let doors: [DoorEntry] = [
        DoorEntry(
            name: "ssh-agent", setting: "ssh_agent.socket_path", path: { $0.sshAgent.socketPath },
            shippedPath: DaemonConfiguration.SSHAgent().socketPath, handler: { $0.sshAgent }
        ),
        DoorEntry(
            name: "ctaphid", setting: "webauthn.socket", path: { $0.webAuthn.socketPath },
            shippedPath: DaemonConfiguration.WebAuthn().socketPath, handler: { $0.ctaphid }
        ),
        varlink,
    ]

    /// The door an inherited socket serves: the one systemd named it after; else, named
    /// otherwise (the shipped unit's one name for all), the door whose configured path —
    /// or, for a door turned off, its shipped path — it is bound to; else Varlink.
    static func door(forSocketNamed name: String?, boundTo path: String?, _ configuration: DaemonConfiguration) -> DoorEntry {
        if let named = doors.first(where: { $0.name == name }) { return named }
        guard let path else { return varlink }
        return doors.first { door in
            let configured = door.path(configuration)
            return (configured.isEmpty ? door.shippedPath : configured) == path
        } ?? varlink
    }
}
