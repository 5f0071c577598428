import PinVaultSystem

/// How much of the event loop signatures may take while others wait for it: `Sign` and
/// the ssh-agent's SIGN_REQUEST are signed on the loop itself (no thread hop: that is
/// what makes the agent fast), but within each `window` every uid together signs inline
/// for at most `share` of it while the loop has more work waiting (`LoopBacklog`: more
/// events of its last wait, or more requests behind this one). Past that, signatures go
/// to the signing thread, whose queue takes uids in turn (`WorkPool`), so a flood of
/// signatures — from one uid or from the many uids of one person — delays the loop,
/// and every other uid's calls, by at most `share` per `window`, and another uid's
/// signature by about one signature of each uid queued before it.
///
/// A signature with nothing else waiting stays on the loop whatever was spent, and is
/// not charged: it kept no one waiting, and handing it off would delay no one less and
/// add the signing thread's two wake-ups to it (across CPUs, more than a P-256
/// signature itself). A client signing back to back on one connection is such a one;
/// so its signatures do not use up the share before someone else comes.
///
/// Any other signature is charged what it kept the loop from everyone else: the time
/// from its start to its end on the loop's clock.
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

    /// Whether `uid` may sign inline at `now`: always while no other work waits for the
    /// loop (`othersWaiting` false), else within the window's share.
    mutating func allows(_ uid: UInt32, at now: UInt64, othersWaiting: Bool = true) -> Bool {
        if now &- windowStart >= Self.window {
            windowStart = now
            spent.removeAll()
        }
        return !othersWaiting || spent.refusal(taking: 1, uid: uid, isAdmin: false) == nil
    }

    /// `uid` spent `nanoseconds` signing, while `othersWaiting` (else it costs nothing).
    mutating func charge(_ uid: UInt32, _ nanoseconds: UInt64, othersWaiting: Bool = true) {
        guard othersWaiting else { return }
        spent.take(Int(clamping: nanoseconds), uid: uid)
    }
}
