import Glibc

extension UnsafeRawBufferPointer {
    /// Whether `other` holds the same bytes: one `memcmp` (not constant time — for names,
    /// never for secrets). `Sequence.elementsEqual` walks both through iterators, some
    /// ten times the cost on the parser's hot path.
    func hasSameBytes(as other: UnsafeRawBufferPointer) -> Bool {
        guard count == other.count else { return false }
        guard count > 0, let base = baseAddress, let otherBase = other.baseAddress else { return true }
        return memcmp(base, otherBase, count) == 0
    }
}
