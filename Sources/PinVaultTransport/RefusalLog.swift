import Logging

/// Connections refused at the door (groups, limits, descriptors), counted by reason
/// and logged as one summary line at most every `interval`: any local user can
/// connect in a loop, and one line per refusal would let them flood the journal
/// until its rate limit drops the audit events that matter.
struct RefusalLog {
    static let intervalMilliseconds: Int64 = 10_000

    private var counts: [String: Int] = [:]
    private var lastReport: Int64 = 0

    mutating func note(_ reason: String) {
        counts[reason, default: 0] += 1
    }

    mutating func report(now: Int64, to logger: Logger) {
        guard !counts.isEmpty, now - lastReport >= Self.intervalMilliseconds else { return }
        for (reason, count) in counts.sorted(by: { $0.key < $1.key }) {
            logger.notice("refused connections", metadata: ["count": "\(count)", "reason": "\(reason)"])
        }
        counts = [:]
        lastReport = now
    }
}
