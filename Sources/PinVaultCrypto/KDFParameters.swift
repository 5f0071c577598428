/// Argon2id v1.3 cost parameters, stored with every record so that each record opens
/// with the parameters it was sealed with, whatever the configuration says today.
public struct KDFParameters: Hashable, Sendable {
    /// Passes over memory (`crypto_pwhash` opslimit).
    public var opslimit: UInt64
    /// Memory in bytes (`crypto_pwhash` memlimit).
    public var memlimit: UInt64

    public init(opslimit: UInt64, memlimit: UInt64) {
        self.opslimit = opslimit
        self.memlimit = memlimit
    }

    /// The production default: opslimit 3, 64 MiB.
    public static let `default` = KDFParameters(opslimit: 3, memlimit: 64 << 20)

    /// Argon2id's sane floor; anything below needs `kdf.allow_weak`.
    public static let floor = KDFParameters(opslimit: 2, memlimit: 16 << 20)

    /// True when either parameter is under `floor`.
    public var isWeak: Bool {
        opslimit < Self.floor.opslimit || memlimit < Self.floor.memlimit
    }

    /// True when `self` costs less than `other` in either dimension: a record sealed
    /// with `self` is re-sealed with `upgraded(to: other)` on its next successful use.
    public func isWeaker(than other: KDFParameters) -> Bool {
        opslimit < other.opslimit || memlimit < other.memlimit
    }

    /// What a record sealed with `self` is re-sealed with when the configuration asks for
    /// `configured`: the larger of each cost, so that an upgrade never lowers one. A record
    /// at (4 passes, 64 MiB) under a configuration of (3, 128 MiB) becomes (4, 128 MiB).
    /// Equal to `self` when nothing is to be upgraded.
    public func upgraded(to configured: KDFParameters) -> KDFParameters {
        KDFParameters(opslimit: max(opslimit, configured.opslimit), memlimit: max(memlimit, configured.memlimit))
    }

    /// True when either cost is above `maximum`'s: a record naming such costs was not
    /// sealed by this configuration's history and is refused before any KDF runs.
    public func exceeds(_ maximum: KDFParameters) -> Bool {
        opslimit > maximum.opslimit || memlimit > maximum.memlimit
    }
}
