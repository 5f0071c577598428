import PinVaultConfiguration
import PinVaultCrypto

extension DaemonConfiguration {
    /// `[kdf]`: Argon2id costs for new seals and the bounded pool that runs them.
    public struct KDF: Sendable, Equatable {
        /// `opslimit` and `memlimit_mib` (or `memlimit_kib`): the costs new and
        /// upgraded records are sealed with.
        public var parameters = KDFParameters.default
        /// `max_parallel`: KDF runs at once; 0 means one per CPU core.
        public var maxParallel = 0
        /// `queue_max`: KDF jobs waiting at most, all peers together; past it, `Busy`.
        public var queueMax = 64
        /// `queue_per_uid`: KDF jobs of one peer uid waiting at most; past it, `Busy`.
        public var queuePerUid = 8
        /// `allow_weak`: accept parameters under `KDFParameters.floor` (tests only).
        public var allowWeak = false
        /// `max_opslimit` and `max_memlimit_mib`: the largest costs a stored record may
        /// name. A record beyond either was edited outside the daemon (its header is
        /// authenticated, so it cannot open anyway) and is refused before any KDF runs,
        /// instead of tying a KDF thread up for hours. Never below `parameters`; when a
        /// key is absent and `parameters` exceed its default, it follows `parameters`.
        public var maximum = Self.defaultMaximum

        /// 16 passes and 1 GiB: about 5× the default's passes and 16× its memory, some
        /// 8 s of Argon2id on one core at worst; raise it with the costs themselves.
        public static let defaultMaximum = KDFParameters(opslimit: 16, memlimit: 1 << 30)

        /// The defaults.
        public init() {}

        /// Keys of `[kdf]`. `memlimit_kib` is the small-memory form for tests
        /// (e.g. 8 KiB with `allow_weak`); it and `memlimit_mib` exclude each other.
        static let keys = [
            "opslimit", "memlimit_mib", "memlimit_kib", "max_parallel", "queue_max",
            "queue_per_uid", "allow_weak", "max_opslimit", "max_memlimit_mib",
        ]

        /// The most memory one KDF run may be given: 16 GiB.
        static let maximumMemlimitMiB: Int64 = 16384

        /// Reads `[kdf]` over the defaults.
        init(_ section: ConfigurationSection) throws(ConfigurationError) {
            try section.refuseUnknownKeys(Self.keys)
            self.init()
            if let value = try section.boolean("allow_weak") { allowWeak = value }
            if let value = try section.integer("max_parallel", in: 0...256) { maxParallel = Int(value) }
            if let value = try section.integer("queue_max", in: 1...65536) { queueMax = Int(value) }
            if let value = try section.integer("queue_per_uid", in: 1...65536) { queuePerUid = Int(value) }
            guard queuePerUid <= queueMax else {
                throw section.error(
                    section.either("queue_per_uid", "queue_max"),
                    "kdf.queue_per_uid (\(queuePerUid)) must not exceed kdf.queue_max (\(queueMax))"
                )
            }
            parameters = try Self.parameters(section, allowWeak: allowWeak)
            maximum = try Self.maximum(section, parameters: parameters)
        }

        /// `max_opslimit` and `max_memlimit_mib`, never below `parameters`.
        private static func maximum(
            _ section: ConfigurationSection, parameters: KDFParameters
        ) throws(ConfigurationError) -> KDFParameters {
            var maximum = defaultMaximum
            // libsodium's own bounds: opslimit up to 2^32 - 1, memlimit up to 4 TiB.
            if let value = try section.integer("max_opslimit", in: 1...4_294_967_295) {
                guard UInt64(value) >= parameters.opslimit else {
                    throw section.error("max_opslimit", "kdf.max_opslimit (\(value)) is below kdf.opslimit (\(parameters.opslimit))")
                }
                maximum.opslimit = UInt64(value)
            } else {
                maximum.opslimit = max(maximum.opslimit, parameters.opslimit)
            }
            if let value = try section.integer("max_memlimit_mib", in: 1...4_194_303) {
                guard UInt64(value) << 20 >= parameters.memlimit else {
                    throw section.error(
                        "max_memlimit_mib",
                        "kdf.max_memlimit_mib (\(value)) is below the configured memlimit (\(parameters.memlimit >> 20) MiB)"
                    )
                }
                maximum.memlimit = UInt64(value) << 20
            } else {
                maximum.memlimit = max(maximum.memlimit, parameters.memlimit)
            }
            return maximum
        }

        private static func parameters(
            _ section: ConfigurationSection, allowWeak: Bool
        ) throws(ConfigurationError) -> KDFParameters {
            var parameters = KDFParameters.default
            if let value = try section.integer("opslimit", in: 1...64) { parameters.opslimit = UInt64(value) }
            let mebibytes = try section.integer("memlimit_mib", in: 1...maximumMemlimitMiB)
            let kibibytes = try section.integer("memlimit_kib", in: 8...(maximumMemlimitMiB << 10))
            let memlimitKey = kibibytes != nil ? "memlimit_kib" : "memlimit_mib"
            switch (mebibytes, kibibytes) {
            case (.some, .some):
                throw section.error(
                    "memlimit_kib",
                    "give kdf.memlimit_mib or kdf.memlimit_kib, not both (memlimit_mib is on line \(section.line(of: "memlimit_mib") ?? 0))"
                )
            case (.some(let value), nil): parameters.memlimit = UInt64(value) << 20
            case (nil, .some(let value)): parameters.memlimit = UInt64(value) << 10
            case (nil, nil): break
            }
            guard PinKDF.isSupported(parameters) else {
                throw section.error(memlimitKey, "Argon2id in libsodium does not support opslimit \(parameters.opslimit) with \(parameters.memlimit) bytes")
            }
            if parameters.isWeak, !allowWeak {
                let floor = KDFParameters.floor
                let key = parameters.opslimit < floor.opslimit ? "opslimit" : memlimitKey
                throw section.error(
                    key,
                    "below Argon2id's floor (opslimit \(floor.opslimit), memlimit \(floor.memlimit >> 20) MiB); allowed only with kdf.allow_weak = true, which is for tests"
                )
            }
            return parameters
        }
    }
}
