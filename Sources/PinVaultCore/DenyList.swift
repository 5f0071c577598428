import Glibc

/// The PINs too common to allow (config `policy.deny_list`), as a hash set of byte
/// strings.
///
/// A lookup never copies the PIN: it hashes the caller's bytes in place with 64-bit
/// FNV-1a (not Swift's `Hasher`, which would take the bytes into its own state) and
/// compares candidates with `memcmp`. The entries themselves are public data and live
/// back to back in one ordinary array. Lookups are O(1): the open-addressing table is
/// kept at most half full.
public struct DenyList: Sendable {
    /// The entries back to back; entry `i` ends at `ends[i]` and starts where entry
    /// `i - 1` ends (or at 0).
    private var bytes: [UInt8] = []
    private var ends: [Int] = []
    /// FNV-1a of each entry, to skip most `memcmp`s.
    private var hashes: [UInt64] = []
    /// Open-addressing table of entry indexes, `-1` for an empty slot; its size is a
    /// power of two at least twice the number of entries (or 0 when there are none).
    private var slots: [Int] = []

    /// No entries: nothing is refused for being common.
    public static let empty = DenyList(entries: [])

    /// A deny list of `entries`' UTF-8 bytes, taken exactly as given. Empty strings
    /// are ignored (an empty PIN is refused as `empty` anyway); duplicates count once.
    public init(entries: [String]) {
        for entry in entries {
            var entry = entry
            entry.withUTF8 { insert(UnsafeRawBufferPointer($0)) }
        }
    }

    /// The number of distinct entries.
    public var count: Int { ends.count }

    /// True when `pin`'s bytes are exactly one of the entries.
    public func contains(_ pin: UnsafeRawBufferPointer) -> Bool {
        index(of: pin, hash: Self.fnv1a(pin)) != nil
    }

    /// Adds one entry unless it is empty or already present.
    mutating func insert(_ entry: UnsafeRawBufferPointer) {
        guard !entry.isEmpty else { return }
        let hash = Self.fnv1a(entry)
        guard index(of: entry, hash: hash) == nil else { return }
        if (ends.count + 1) * 2 > slots.count {
            rebuildSlots(size: max(16, slots.count * 2))
        }
        bytes.append(contentsOf: entry)
        ends.append(bytes.count)
        hashes.append(hash)
        place(ends.count - 1)
    }

    private func index(of candidate: UnsafeRawBufferPointer, hash: UInt64) -> Int? {
        guard !slots.isEmpty, !candidate.isEmpty, let candidateBase = candidate.baseAddress else {
            return nil
        }
        let mask = slots.count - 1
        var slot = Int(truncatingIfNeeded: hash) & mask
        // The table is never full, so an empty slot ends every probe sequence.
        while slots[slot] >= 0 {
            let entry = slots[slot]
            if hashes[entry] == hash {
                let start = entry == 0 ? 0 : ends[entry - 1]
                if ends[entry] - start == candidate.count {
                    let equal = bytes.withUnsafeBytes { stored in
                        guard let storedBase = stored.baseAddress else { return false }
                        return memcmp(storedBase + start, candidateBase, candidate.count) == 0
                    }
                    if equal { return entry }
                }
            }
            slot = (slot + 1) & mask
        }
        return nil
    }

    private mutating func rebuildSlots(size: Int) {
        slots = Array(repeating: -1, count: size)
        for entry in ends.indices { place(entry) }
    }

    private mutating func place(_ entry: Int) {
        let mask = slots.count - 1
        var slot = Int(truncatingIfNeeded: hashes[entry]) & mask
        while slots[slot] >= 0 { slot = (slot + 1) & mask }
        slots[slot] = entry
    }

    /// 64-bit FNV-1a over `bytes`.
    private static func fnv1a(_ bytes: UnsafeRawBufferPointer) -> UInt64 {
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for byte in bytes {
            hash ^= UInt64(byte)
            hash &*= 0x0000_0100_0000_01b3
        }
        return hash
    }
}

extension DenyList: Equatable {
    /// Two deny lists are equal when they hold the same entries, in any order.
    public static func == (lhs: DenyList, rhs: DenyList) -> Bool {
        guard lhs.count == rhs.count else { return false }
        return lhs.bytes.withUnsafeBytes { stored in
            var start = 0
            for end in lhs.ends {
                let entry = UnsafeRawBufferPointer(rebasing: stored[start..<end])
                guard rhs.contains(entry) else { return false }
                start = end
            }
            return true
        }
    }
}
