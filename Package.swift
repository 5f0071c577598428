// swift-tools-version:6.0
//
// PinVault — a local credential daemon for Linux. docs/ARCHITECTURE.md has the module
// map: what each module owns, and the one way dependencies point (the targets below
// declare exactly those edges; scripts/check-module-dependencies.py checks the imports).
// The interface's Swift is generated from io.pinvault.Vault.varlink at build time
// (Plugins/GenerateVarlinkInterface).
import PackageDescription

let package = Package(
    name: "PinVault",
    products: [
        .executable(name: "pinvaultd", targets: ["pinvaultd"]),
        .executable(name: "pinvault", targets: ["pinvault"]),
        .library(name: "PinVaultClient", targets: ["PinVaultClient"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-log", from: "1.16.2"),
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.8.2"),
    ],
    targets: [
        // C modules: no logic.
        .systemLibrary(
            name: "CSodium",
            pkgConfig: "libsodium",
            providers: [.apt(["libsodium-dev"])]
        ),
        .systemLibrary(
            name: "CSQLite",
            pkgConfig: "sqlite3",
            providers: [.apt(["libsqlite3-dev"])]
        ),
        .target(name: "CPinVaultSystem"),
        // The system's libcrypto (OpenSSL 3), loaded at its first use (libcrypto.h): P-256 keys,
        // the host keys session-bind names, CTAP's PIN protocols.
        .target(name: "CPinVaultOpenSSL"),

        // The system, secrets, and rules with no I/O.
        .target(name: "PinVaultSystem", dependencies: ["CPinVaultSystem"]),
        // KeyPurpose is generated from the interface's Credential.purpose (the plugin below).
        .target(name: "PinVaultCrypto", dependencies: ["CSodium", "CPinVaultOpenSSL"], plugins: ["GenerateVarlinkInterface"]),
        .target(name: "PinVaultCore", dependencies: ["PinVaultCrypto"]),

        // The TOML subset of PinVault's configuration files, read strictly.
        .target(name: "PinVaultConfiguration", dependencies: ["PinVaultSystem"]),

        // Storage and the Varlink wire format.
        .target(name: "PinVaultStore", dependencies: ["PinVaultCrypto", "PinVaultSystem", "CSQLite"]),
        .target(
            name: "PinVaultProtocol",
            dependencies: ["PinVaultCrypto"],
            plugins: ["GenerateVarlinkInterface"]
        ),
        .target(name: "PinVaultSSHProtocol", dependencies: ["PinVaultCrypto"]),
        // CTAP's CBOR, strictly (no I/O, no dependency).
        .target(name: "PinVaultCBOR"),
        // CTAPHID (the FIDO HID transport): reports, channels, reassembly, and the
        // authenticator interface the door calls (no I/O).
        .target(name: "PinVaultCTAPHID", dependencies: ["PinVaultCrypto"]),

        // The vault engine and the transport, side by side; the front door over both.
        .target(
            name: "PinVaultEngine",
            dependencies: [
                "PinVaultCore", "PinVaultCrypto", "PinVaultStore", "PinVaultSSHProtocol", "PinVaultSystem",
                .product(name: "Logging", package: "swift-log"),
            ]
        ),
        // What a door is — framing, message handler, reply route, peer — apart from the
        // server that serves doors (as NIOCore is apart from NIOPosix).
        .target(name: "PinVaultDoor", dependencies: ["PinVaultCrypto"]),
        .target(
            name: "PinVaultTransport",
            dependencies: [
                "PinVaultDoor", "PinVaultCrypto", "PinVaultSystem", "CPinVaultSystem",
                .product(name: "Logging", package: "swift-log"),
            ]
        ),
        .target(
            name: "PinVaultVarlink",
            dependencies: ["PinVaultEngine", "PinVaultDoor", "PinVaultProtocol", "PinVaultCore", "PinVaultCrypto"]
        ),
        // The ssh-agent door over any backend (framing, the switch, session-bind), and
        // pinvaultd's agent socket: that door over the engine.
        .target(
            name: "PinVaultAgentDoor",
            dependencies: ["PinVaultDoor", "PinVaultSSHProtocol", "PinVaultCrypto", "CPinVaultOpenSSL"]
        ),
        .target(
            name: "PinVaultSSHAgent",
            dependencies: ["PinVaultAgentDoor", "PinVaultEngine", "PinVaultDoor", "PinVaultSSHProtocol", "PinVaultCrypto"]
        ),

        // The CTAPHID door: 64-byte reports per connection, each a virtual FIDO device, over
        // any authenticator.
        .target(
            name: "PinVaultCTAPHIDDoor",
            dependencies: ["PinVaultCTAPHID", "PinVaultDoor", "PinVaultCrypto", "PinVaultSystem"]
        ),

        // The security key: CTAP 2.1 over the engine, behind the CTAPHID door's seam.
        .target(
            name: "PinVaultWebAuthn",
            dependencies: ["PinVaultCTAPHID", "PinVaultCBOR", "PinVaultEngine", "PinVaultCrypto", "PinVaultSystem"]
        ),

        // The daemon: configuration, start-up, the composition root; and its executable.
        .target(
            name: "PinVaultDaemon",
            dependencies: [
                "PinVaultVarlink", "PinVaultSSHAgent", "PinVaultAgentDoor", "PinVaultCTAPHIDDoor", "PinVaultCTAPHID", "PinVaultWebAuthn",
                "PinVaultDoor",
                "PinVaultEngine", "PinVaultTransport", "PinVaultStore",
                "PinVaultConfiguration",
                "PinVaultCore", "PinVaultCrypto", "PinVaultSystem",
                .product(name: "Logging", package: "swift-log"),
            ]
        ),
        .executableTarget(name: "pinvaultd", dependencies: ["PinVaultDaemon", "PinVaultSystem"]),

        // The per-user agent (pinvault agent): the ssh-agent door over pinvaultd, with prompts.
        .target(
            name: "PinVaultUserAgent",
            dependencies: [
                "PinVaultAgentDoor", "PinVaultClient", "PinVaultConfiguration", "PinVaultDoor", "PinVaultTransport", "PinVaultSSHProtocol",
                "PinVaultProtocol", "PinVaultCrypto", "PinVaultSystem", .product(name: "Logging", package: "swift-log"),
            ]
        ),

        // The client library and the command line.
        .target(name: "PinVaultClient", dependencies: ["PinVaultProtocol", "PinVaultCrypto", "PinVaultSystem", "CPinVaultSystem"]),
        .executableTarget(
            name: "pinvault",
            dependencies: [
                "PinVaultClient", "PinVaultProtocol", "PinVaultCrypto", "PinVaultSSHProtocol", "PinVaultSystem", "PinVaultUserAgent",
                "PinVaultConfiguration", "PinVaultTransport", .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "Logging", package: "swift-log"),
            ]
        ),

        // The interface's Swift, generated from io.pinvault.Vault.varlink at build time.
        .plugin(
            name: "GenerateVarlinkInterface",
            capability: .buildTool(),
            dependencies: ["varlink-interface-generator"]
        ),
        .executableTarget(name: "varlink-interface-generator", path: "Plugins/varlink-interface-generator"),

        // Never shipped: the in-process vault (fuzzer, tests) and the test kit.
        .target(
            name: "PinVaultEmbedded",
            dependencies: [
                "PinVaultDaemon", "PinVaultDoor", "PinVaultCTAPHID", "PinVaultTransport", "PinVaultStore", "PinVaultCore", "PinVaultCrypto",
                "PinVaultSystem", .product(name: "Logging", package: "swift-log"),
            ]
        ),
        .target(
            name: "PinVaultTestKit",
            dependencies: [
                "PinVaultProtocol", "PinVaultSSHProtocol", "PinVaultCBOR", "PinVaultStore", "PinVaultCrypto", "PinVaultSystem", "CPinVaultSystem",
            ]
        ),

        // `make bench`: PinVault beside raw Argon2id and ssh-agent, in one run.
        .executableTarget(
            name: "pinvault-bench",
            dependencies: ["PinVaultTestKit", "PinVaultProtocol", "PinVaultCrypto", "PinVaultStore", "PinVaultSystem", "CSodium"],
            path: "Benchmarks/pinvault-bench"
        ),

        // `make fuzz`: libFuzzer over framing, JSON, parameters and every method, and
        // (`make fuzz-transport`) over the real event loop on socketpairs; built plainly
        // it replays Fuzz/corpus and Fuzz/corpus-transport (a regression run).
        .executableTarget(
            name: "pinvault-fuzz",
            dependencies: [
                "PinVaultEmbedded", "PinVaultDoor", "PinVaultTransport", "PinVaultProtocol", "PinVaultSSHProtocol", "PinVaultCBOR",
                "PinVaultCTAPHID", "PinVaultCrypto", "PinVaultSystem", .product(name: "Logging", package: "swift-log"),
            ],
            path: "Fuzz/pinvault-fuzz"
        ),

        .testTarget(name: "PinVaultSystemTests", dependencies: ["PinVaultSystem"]),
        .testTarget(name: "PinVaultCryptoTests", dependencies: ["PinVaultCrypto"]),
        .testTarget(name: "PinVaultCoreTests", dependencies: ["PinVaultCore", "PinVaultCrypto"]),
        .testTarget(name: "PinVaultConfigurationTests", dependencies: ["PinVaultConfiguration"]),
        .testTarget(
            name: "PinVaultStoreTests",
            dependencies: ["PinVaultStore", "PinVaultCrypto", "PinVaultSystem", "PinVaultTestKit"]
        ),
        .testTarget(name: "PinVaultProtocolTests", dependencies: ["PinVaultProtocol", "PinVaultCrypto"]),
        .testTarget(name: "PinVaultCBORTests", dependencies: ["PinVaultCBOR"]),
        .testTarget(
            name: "PinVaultWebAuthnTests",
            dependencies: [
                "PinVaultWebAuthn", "PinVaultCTAPHID", "PinVaultCBOR", "PinVaultEngine", "PinVaultStore", "PinVaultCore", "PinVaultCrypto",
                .product(name: "Logging", package: "swift-log"),
            ]
        ),
        .testTarget(name: "PinVaultSSHProtocolTests", dependencies: ["PinVaultSSHProtocol", "PinVaultCrypto"]),
        .testTarget(name: "PinVaultCTAPHIDTests", dependencies: ["PinVaultCTAPHID", "PinVaultCrypto"]),
        // The CTAPHID door on the real event loop and socket, before a scripted authenticator.
        .testTarget(
            name: "PinVaultCTAPHIDDoorTests",
            dependencies: [
                "PinVaultCTAPHIDDoor", "PinVaultCTAPHID", "PinVaultDoor", "PinVaultTransport", "PinVaultCrypto", "PinVaultSystem",
                "PinVaultTestKit", .product(name: "Logging", package: "swift-log"),
            ]
        ),
        .testTarget(name: "PinVaultAgentDoorTests", dependencies: ["PinVaultAgentDoor", "PinVaultSSHProtocol", "PinVaultProtocol"]),
        .testTarget(
            name: "PinVaultSSHAgentTests",
            dependencies: ["PinVaultEmbedded", "PinVaultSSHProtocol", "PinVaultDoor", "PinVaultTransport", "PinVaultCrypto"]
        ),
        .testTarget(
            name: "PinVaultEngineTests",
            dependencies: [
                "PinVaultEngine", "PinVaultStore", "PinVaultCore", "PinVaultCrypto", "PinVaultSSHProtocol", "PinVaultSystem",
                .product(name: "Logging", package: "swift-log"),
            ]
        ),
        .testTarget(
            name: "PinVaultTransportTests",
            dependencies: [
                "PinVaultTransport", "PinVaultDoor", "PinVaultProtocol", "PinVaultCrypto", "PinVaultSystem",
                .product(name: "Logging", package: "swift-log"),
            ]
        ),
        .testTarget(
            name: "PinVaultVarlinkTests",
            dependencies: [
                "PinVaultVarlink", "PinVaultEmbedded", "PinVaultEngine", "PinVaultDoor", "PinVaultTransport", "PinVaultProtocol",
                "PinVaultCrypto", "PinVaultClient",
            ]
        ),
        .testTarget(
            name: "PinVaultDaemonTests",
            dependencies: [
                "PinVaultDaemon", "PinVaultConfiguration", "PinVaultCore", "PinVaultCrypto",
                .product(name: "Logging", package: "swift-log"),
            ]
        ),
        .testTarget(
            name: "PinVaultIntegrationTests",
            // The engine's KeyAccess: DoorPurposeTests drives every door of the engine's
            // table, legacy credentials (written as the second release did) included.
            dependencies: ["PinVaultTestKit", "PinVaultSystem", "PinVaultEngine", "PinVaultCrypto"]
        ),
        .testTarget(
            name: "PinVaultClientTests",
            dependencies: ["PinVaultClient", "PinVaultTestKit", "PinVaultProtocol", "PinVaultCrypto"]
        ),
        .testTarget(name: "PinVaultCLITests", dependencies: ["PinVaultTestKit", "PinVaultStore", "PinVaultCrypto"]),
        // pinvault agent as a process, before a real pinvaultd, its prompts scripted.
        .testTarget(name: "PinVaultUserAgentTests", dependencies: ["PinVaultTestKit", "PinVaultCrypto", "PinVaultSSHProtocol"]),
        .testTarget(
            name: "PinVaultAdversarialTests",
            dependencies: ["PinVaultTestKit", "PinVaultCrypto"]
        ),
        .testTarget(name: "PinVaultDeploymentTests", dependencies: ["PinVaultTestKit"]),
        // The ssh-agent socket with OpenSSH itself: ssh, ssh-add, ssh-keygen and a real sshd.
        .testTarget(name: "PinVaultSSHTests", dependencies: ["PinVaultTestKit", "PinVaultCrypto", "PinVaultSSHProtocol"]),
        // pam_pinvault.so (built from pam/ by `make pam`, C) through pamtester and sudo.
        .testTarget(name: "PinVaultPAMTests", dependencies: ["PinVaultTestKit", "PinVaultCrypto"]),
        // pinvault-pkcs11.so (pkcs11/, C, over libpinvault) through pkcs11-tool, p11tool, p11-kit and
        // PyKCS11, beside SoftHSM2.
        .testTarget(name: "PinVaultPKCS11Tests", dependencies: ["PinVaultTestKit"]),
    ],
    swiftLanguageModes: [.v6]
)
