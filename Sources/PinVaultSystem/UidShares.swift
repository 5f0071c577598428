/// A capacity that every uid draws on — places in the session table, connections,
/// bytes of locked memory — shared so that a person holding many uids (a subordinate
/// range: `/etc/subuid`, rootless podman) cannot take all of it. Per-uid limits alone
/// add up: k uids hold k times a uid's limit.
///
/// From the top of `capacity` down, it keeps:
/// - `adminReserve`: the last part, for admins only (root, `access.admin_group`);
/// - below it, `newcomerReserve`: for a uid that holds less than `newcomerShare`, so
///   that a uid arriving after others filled the rest still gets its first places;
/// - the rest, for anyone, up to `perUid` each.
///
/// So once uids that each hold `newcomerShare` or more have taken everything open to
/// anyone, another uid still gets `newcomerShare`, and keeps getting it until
/// `newcomerReserve / newcomerShare` such newcomers came; an admin gets in until the
/// whole capacity is taken. Nothing is ever taken back from a uid: a share is kept by
/// refusing, never by eviction.
///
/// A value with no lock: its owner serialises it (the event loop, the session table's lock).
public struct UidShares: Sendable {
    public struct Limits: Sendable, Equatable {
        /// Every uid together.
        public var capacity: Int
        /// One uid at most (admins too).
        public var perUid: Int
        /// The top of `capacity` that only admins may take.
        public var adminReserve: Int
        /// Below `adminReserve`: what only a uid holding less than `newcomerShare` may take.
        public var newcomerReserve: Int
        /// What a uid may hold and still count as a newcomer.
        public var newcomerShare: Int

        public init(capacity: Int, perUid: Int, adminReserve: Int, newcomerReserve: Int, newcomerShare: Int) {
            self.capacity = max(capacity, 0)
            self.perUid = max(perUid, 0)
            self.adminReserve = min(max(adminReserve, 0), self.capacity)
            self.newcomerReserve = min(max(newcomerReserve, 0), self.capacity - self.adminReserve)
            self.newcomerShare = max(newcomerShare, 0)
        }

        /// Every limit multiplied by `factor` (connections' shares, as bytes of a
        /// message each), saturating.
        public func scaled(by factor: Int) -> Limits {
            func times(_ value: Int) -> Int {
                let (product, overflow) = value.multipliedReportingOverflow(by: max(factor, 0))
                return overflow ? Int.max : product
            }
            return Limits(
                capacity: times(capacity), perUid: times(perUid), adminReserve: times(adminReserve),
                newcomerReserve: times(newcomerReserve), newcomerShare: times(newcomerShare)
            )
        }
    }

    /// Why a uid may not take more.
    public enum Refusal: Equatable, Sendable {
        /// It would hold more than `perUid`.
        case perUid
        /// It would take the total past `capacity`.
        case full
        /// What is left is `adminReserve`, and the uid is no admin.
        case keptForAdmins
        /// What is left is kept for uids holding less than `newcomerShare`, and this
        /// one holds that much.
        case keptForNewcomers
    }

    public let limits: Limits
    /// Taken, every uid together.
    public private(set) var total = 0
    private var held: [UInt32: Int] = [:]

    public init(_ limits: Limits) {
        self.limits = limits
    }

    /// What `uid` holds.
    public func held(by uid: UInt32) -> Int {
        held[uid, default: 0]
    }

    /// Why `uid` may not take `amount` more now; nil when it may.
    public func refusal(taking amount: Int, uid: UInt32, isAdmin: Bool) -> Refusal? {
        let mine = held(by: uid)
        let (after, overflow) = total.addingReportingOverflow(amount)
        let (holding, overflowing) = mine.addingReportingOverflow(amount)
        if overflowing || holding > limits.perUid { return .perUid }
        if overflow || after > limits.capacity { return .full }
        if isAdmin { return nil }
        let open = limits.capacity - limits.adminReserve
        if after > open { return .keptForAdmins }
        if after > open - limits.newcomerReserve && holding > limits.newcomerShare { return .keptForNewcomers }
        return nil
    }

    /// `uid` takes `amount` (checked with `refusal` first, or measured after the fact:
    /// the total may then pass `capacity`, and everyone is refused until it falls back).
    public mutating func take(_ amount: Int, uid: UInt32) {
        guard amount > 0 else { return }
        let (sum, overflow) = total.addingReportingOverflow(amount)
        total = overflow ? Int.max : sum
        let (mine, overflowing) = held(by: uid).addingReportingOverflow(amount)
        held[uid] = overflowing ? Int.max : mine
    }

    /// `uid` gives back `amount` of what it took.
    public mutating func give(_ amount: Int, uid: UInt32) {
        guard amount > 0, let mine = held[uid] else { return }
        let returned = min(amount, mine)
        total -= returned
        held[uid] = mine > returned ? mine - returned : nil
    }

    /// Everything given back (a new window of time).
    public mutating func removeAll() {
        total = 0
        held.removeAll(keepingCapacity: true)
    }
}
