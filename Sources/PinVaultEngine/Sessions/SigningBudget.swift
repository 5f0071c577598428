import PinVaultSystem

/// How much of the event loop signatures may take: `Sign` and the ssh-agent's
/// SIGN_REQUEST are signed on the loop itself (no thread hop: that is what makes the
/// agent fast), but within each `window` every uid together signs inline for at most
/// `share` of it. Past that, signatures go to the signing thread, whose queue takes
/// uids in turn (`WorkPool`), so a flood of signatures — from one uid or from the many
/// uids of one person — delays the loop, and every other uid's calls, by at most
/// `share` per `window`, and another uid's signature by about one signature of each
/// uid queued before it.
///
/// The share is one for all (`UidShares`: k uids once took k × 5 ms of every 10 ms),
/// with a fifth of it kept for uids that signed next to nothing in the window, so that
/// one uid signing without pause does not send everyone else through the thread.
///
/// Times are `MonotonicClock` nanoseconds (the real clock: this measures work).
struct SigningBudget {
    static let window: UInt64 = 10_000_000
    /// Inline signing of every uid together, per window.
    static let share: UInt64 = 5_000_000
    /// What a uid may have signed in the window and still use the reserve: about three
    /// signatures.
    static let newcomerShare: UInt64 = 100_000

    private var windowStart: UInt64 = 0
    private var spent = UidShares(UidShares.Limits(
        capacity: Int(share), perUid: Int(share), adminReserve: 0,
        newcomerReserve: Int(share / 5), newcomerShare: Int(newcomerShare)
    ))

    /// Whether `uid` may sign inline at `now`.
    mutating func allows(_ uid: UInt32, at now: UInt64) -> Bool {
        if now &- windowStart >= Self.window {
            windowStart = now
            spent.removeAll()
        }
        return spent.refusal(taking: 1, uid: uid, isAdmin: false) == nil
    }

    /// `uid` spent `nanoseconds` signing.
    mutating func charge(_ uid: UInt32, _ nanoseconds: UInt64) {
        spent.take(Int(clamping: nanoseconds), uid: uid)
    }
}
