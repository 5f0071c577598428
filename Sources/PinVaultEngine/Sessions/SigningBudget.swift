/// How much of the event loop one uid's signatures may take: `Sign` and the
/// ssh-agent's SIGN_REQUEST are signed on the loop itself (no thread hop: that is
/// what makes the agent fast), but within each `window` a uid signs inline for at
/// most `share` of it. Past that, its signatures go to the signing thread, whose
/// queue takes uids in turn (`WorkPool`), so a uid that pipelines thousands of
/// requests delays the loop — and every other uid's calls — by at most `share` per
/// `window`, and other uids' signatures by about one signature each.
///
/// Times are `MonotonicClock` nanoseconds (the real clock: this measures work).
struct SigningBudget {
    static let window: UInt64 = 10_000_000
    static let share: UInt64 = 5_000_000

    private var windowStart: UInt64 = 0
    private var spent: [UInt32: UInt64] = [:]

    /// Whether `uid` may sign inline at `now`.
    mutating func allows(_ uid: UInt32, at now: UInt64) -> Bool {
        if now &- windowStart >= Self.window {
            windowStart = now
            spent.removeAll(keepingCapacity: true)
        }
        return spent[uid, default: 0] < Self.share
    }

    /// `uid` spent `nanoseconds` signing.
    mutating func charge(_ uid: UInt32, _ nanoseconds: UInt64) {
        spent[uid, default: 0] &+= nanoseconds
    }
}
