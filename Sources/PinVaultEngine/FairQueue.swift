/// The jobs waiting in a `WorkPool`: first in, first out within each uid, and
/// round-robin between uids, so that a uid that queued one job waits for at most
/// one job of each other waiting uid — not for everything a hog queued before it.
///
/// Sizes are small (at most `queue_max` jobs, `queue_per_uid` of one uid), so plain
/// arrays do; an element leaves the structure the moment it is taken.
struct FairQueue<Element> {
    /// Each waiting uid's elements, oldest first; a uid with none has no entry.
    private var waiting: [UInt32: [Element]] = [:]
    /// The uids with waiting elements, in the order of their next turn.
    private var turns: [UInt32] = []
    /// Elements waiting, over every uid.
    private(set) var count = 0

    var isEmpty: Bool { count == 0 }

    /// Adds `element` behind `uid`'s earlier ones; a uid new to the line goes last.
    mutating func append(_ element: Element, for uid: UInt32) {
        if waiting[uid] == nil { turns.append(uid) }
        waiting[uid, default: []].append(element)
        count += 1
    }

    /// The oldest element of the uid whose turn it is; that uid, if it has more,
    /// goes to the back of the line.
    mutating func removeFirst() -> Element? {
        guard !turns.isEmpty else { return nil }
        let uid = turns.removeFirst()
        guard var elements = waiting.removeValue(forKey: uid), !elements.isEmpty else { return nil }
        let element = elements.removeFirst()
        if !elements.isEmpty {
            waiting[uid] = elements
            turns.append(uid)
        }
        count -= 1
        return element
    }

    /// Takes out every element for which `shouldRemove` holds, wherever it waits; the
    /// others keep their order and their uids their turns. Returns what it took out.
    mutating func removeAll(where shouldRemove: (Element) -> Bool) -> [(uid: UInt32, element: Element)] {
        var removed: [(uid: UInt32, element: Element)] = []
        for uid in turns {
            guard let elements = waiting[uid] else { continue }
            var kept: [Element] = []
            for element in elements {
                if shouldRemove(element) {
                    removed.append((uid, element))
                } else {
                    kept.append(element)
                }
            }
            waiting[uid] = kept.isEmpty ? nil : kept
        }
        guard !removed.isEmpty else { return [] }
        turns.removeAll { waiting[$0] == nil }
        count -= removed.count
        return removed
    }
}
