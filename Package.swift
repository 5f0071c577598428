// swift-tools-version:6.0
//
// PinVault — a local credential daemon for Linux.
//
// Dependencies point one way:
//   C modules (CSodium, CSQLite, CPinVaultSystem)
//     → PinVaultCrypto   every libsodium call, the secret types, the sealed-seed format
//     → PinVaultCore     PIN policy, deny list, lockout schedule (pure values)
//     → PinVaultStore    SQLite vault, schema and migrations, pepper file
//     → PinVaultProtocol Varlink framing, JSON, messages and limits (no I/O)
//     → PinVaultDaemon   event loop, peers, KDF pool, the io.pinvault.Vault service
//     → PinVaultClient   the library apps link: one async method per interface method
//     → pinvaultd, pinvault   the daemon and the command line
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

        // Secrets and cryptography.
        .target(name: "PinVaultCrypto", dependencies: ["CSodium"]),

        // Domain rules with no I/O.
        .target(name: "PinVaultCore", dependencies: ["PinVaultCrypto"]),

        // Storage and wire protocol.
        .target(name: "PinVaultStore", dependencies: ["PinVaultCrypto", "CSQLite"]),
        .target(name: "PinVaultProtocol", dependencies: ["PinVaultCrypto"]),

        // The daemon.
        .target(
            name: "PinVaultDaemon",
            dependencies: [
                "PinVaultCrypto", "PinVaultCore", "PinVaultStore", "PinVaultProtocol",
                "CPinVaultSystem",
                .product(name: "Logging", package: "swift-log"),
            ]
        ),
        .executableTarget(
            name: "pinvaultd",
            dependencies: [
                "PinVaultDaemon",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "Logging", package: "swift-log"),
            ]
        ),

        // The client library and the command line.
        .target(name: "PinVaultClient", dependencies: ["PinVaultProtocol", "PinVaultCrypto"]),
        .executableTarget(
            name: "pinvault",
            dependencies: [
                "PinVaultClient",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ]
        ),

        // `make bench`: PinVault beside raw Argon2id and ssh-agent, in one run.
        .executableTarget(
            name: "pinvault-bench",
            dependencies: ["PinVaultClient", "PinVaultProtocol", "PinVaultCrypto", "PinVaultStore", "CSodium"],
            path: "Benchmarks/pinvault-bench"
        ),

        // `make fuzz`: libFuzzer over framing, JSON, parameters and every method; built
        // plainly it replays Fuzz/corpus (a regression run).
        .executableTarget(
            name: "pinvault-fuzz",
            dependencies: ["PinVaultDaemon", "PinVaultProtocol", "PinVaultCrypto"],
            path: "Fuzz/pinvault-fuzz"
        ),

        // Test support: spawns a real daemon, speaks raw Varlink.
        .target(name: "PinVaultTestKit", dependencies: ["PinVaultProtocol", "PinVaultCrypto"]),

        .testTarget(name: "PinVaultCryptoTests", dependencies: ["PinVaultCrypto"]),
        .testTarget(name: "PinVaultCoreTests", dependencies: ["PinVaultCore", "PinVaultCrypto"]),
        .testTarget(name: "PinVaultStoreTests", dependencies: ["PinVaultStore", "PinVaultCrypto"]),
        .testTarget(name: "PinVaultProtocolTests", dependencies: ["PinVaultProtocol", "PinVaultCrypto"]),
        .testTarget(
            name: "PinVaultDaemonTests",
            dependencies: ["PinVaultDaemon", "PinVaultCore", "PinVaultCrypto", "PinVaultProtocol"]
        ),
        .testTarget(
            name: "PinVaultIntegrationTests",
            dependencies: ["PinVaultTestKit", "PinVaultProtocol", "PinVaultCrypto"]
        ),
        .testTarget(name: "PinVaultClientTests", dependencies: ["PinVaultClient", "PinVaultTestKit"]),
        .testTarget(name: "PinVaultCLITests", dependencies: ["PinVaultTestKit"]),
        .testTarget(
            name: "PinVaultAdversarialTests",
            dependencies: ["PinVaultTestKit", "PinVaultProtocol", "PinVaultCrypto"]
        ),
        .testTarget(name: "PinVaultDeploymentTests", dependencies: ["PinVaultTestKit"]),
        // pam_pinvault.so (built from pam/ by `make pam`, C) through pamtester and sudo.
        .testTarget(name: "PinVaultPAMTests", dependencies: ["PinVaultTestKit", "PinVaultCrypto"]),
    ],
    swiftLanguageModes: [.v6]
)
