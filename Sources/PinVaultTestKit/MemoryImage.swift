import Foundation
import Glibc

/// Another process's writable memory, read through `/proc/PID/maps` and
/// `/proc/PID/mem` (root, or a ptrace-capable reader, only), searched for byte strings:
/// to prove that the daemon keeps no copy of a PIN or token once a request is done.
public struct MemoryImage {
    /// One mapping of `/proc/PID/maps`.
    public struct Region: CustomStringConvertible, Sendable {
        public let start: UInt64
        public let end: UInt64
        public let permissions: String
        /// `[heap]`, `[stack]`, a file path, or empty for an anonymous mapping.
        public let name: String

        public var size: UInt64 { end - start }

        public var description: String {
            let label = name.isEmpty ? "anonymous" : name
            return "\(label) \(permissions) \(String(start, radix: 16))-\(String(end, radix: 16)) (\(size >> 10) KiB)"
        }
    }

    /// One place where a needle was found.
    public struct Match: CustomStringConvertible, Sendable {
        /// The needle's label (e.g. "PIN 3, ASCII").
        public let needle: String
        public let address: UInt64
        public let region: Region
        /// Up to 24 bytes on either side, as printable ASCII or `.`, for telling what holds it.
        public let context: String
        /// The 32 bytes before the match (fewer at a region's start): where libsodium's
        /// Ed25519 secret key, seed ‖ public key, would hold the seed of a public key.
        public let preceding: [UInt8]

        public var description: String {
            "\(needle) at \(String(address, radix: 16)) in \(region): \(context)"
        }
    }

    public let pid: Int32

    public init(pid: Int32) {
        self.pid = pid
    }

    /// The mappings that are readable and writable: the heap, stacks, anonymous
    /// mappings (malloc arenas, thread stacks, `sodium_malloc`), data segments.
    public func writableRegions() throws -> [Region] {
        try regions { $0.hasPrefix("rw") }
    }

    /// The private mappings no one may touch (`---p`) of at most `maxBytes`: the pages
    /// `sodium_mprotect_noaccess` closed (an unlock session's key between signatures),
    /// which root still reads through /proc/PID/mem. The limit leaves out the large
    /// reservations of allocators (malloc's 64 MiB arenas).
    public func inaccessibleRegions(maxBytes: UInt64 = 1 << 20) throws -> [Region] {
        try regions { $0 == "---p" }.filter { $0.size <= maxBytes }
    }

    private func regions(where permitted: (Substring) -> Bool) throws -> [Region] {
        let maps = try Self.wholeFile("/proc/\(pid)/maps")
        return maps.split(separator: "\n").compactMap { line in
            let fields = line.split(separator: " ", maxSplits: 5, omittingEmptySubsequences: true)
            guard fields.count >= 5, permitted(fields[1]) else { return nil }
            let bounds = fields[0].split(separator: "-")
            guard bounds.count == 2, let start = UInt64(bounds[0], radix: 16), let end = UInt64(bounds[1], radix: 16) else {
                return nil
            }
            let name = fields.count == 6 ? fields[5].trimmingCharacters(in: .whitespaces) : ""
            return Region(start: start, end: end, permissions: String(fields[1]), name: name)
        }
    }

    /// Every occurrence of each needle in the writable memory. Regions that cannot be
    /// read (`[vvar]`, mappings gone since `maps` was read) are skipped; `readBytes`
    /// tells how much was searched.
    /// `includingInaccessible`: the `inaccessibleRegions()` too.
    public func find(
        _ needles: [(label: String, bytes: [UInt8])], includingInaccessible: Bool = false
    ) throws -> (matches: [Match], readBytes: UInt64) {
        let fd = open("/proc/\(pid)/mem", O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { throw TestKitError("open /proc/\(pid)/mem: errno \(errno)") }
        defer { close(fd) }
        var matches: [Match] = []
        var total: UInt64 = 0
        for region in try writableRegions() + (includingInaccessible ? inaccessibleRegions() : []) {
            guard let bytes = read(region, from: fd) else { continue }
            total += UInt64(bytes.count)
            for needle in needles where !needle.bytes.isEmpty {
                for offset in Self.occurrences(of: needle.bytes, in: bytes) {
                    matches.append(Match(
                        needle: needle.label,
                        address: region.start + UInt64(offset),
                        region: region,
                        context: Self.context(bytes, around: offset, length: needle.bytes.count),
                        preceding: Array(bytes[max(offset - 32, 0)..<offset])
                    ))
                }
            }
        }
        return (matches, total)
    }

    /// A /proc file read to its end. (`String(contentsOfFile:)` reads a file whose
    /// size says 0 once, and /proc/PID/maps gives at most a page per read: the regions
    /// past the first page — most of a daemon's — were never scanned.)
    static func wholeFile(_ path: String) throws -> String {
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { throw TestKitError("open \(path): errno \(errno)") }
        defer { close(fd) }
        var bytes: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 65536)
        while true {
            let n = chunk.withUnsafeMutableBytes { Glibc.read(fd, $0.baseAddress, $0.count) }
            if n < 0 && errno == EINTR { continue }
            guard n >= 0 else { throw TestKitError("read \(path): errno \(errno)") }
            if n == 0 { break }
            bytes += chunk[..<n]
        }
        return String(decoding: bytes, as: UTF8.self)
    }

    private func read(_ region: Region, from fd: Int32) -> [UInt8]? {
        guard region.size > 0, region.size < 1 << 34 else { return nil }
        var bytes = [UInt8](repeating: 0, count: Int(region.size))
        var done = 0
        while done < bytes.count {
            let n = bytes.withUnsafeMutableBytes { raw in
                pread(fd, raw.baseAddress.map { $0 + done }, raw.count - done, off_t(region.start) + off_t(done))
            }
            if n <= 0 { break }
            done += n
        }
        return done > 0 ? Array(bytes[..<done]) : nil
    }

    /// Offsets of `needle` in `haystack` (memchr for the first byte, then compare).
    static func occurrences(of needle: [UInt8], in haystack: [UInt8]) -> [Int] {
        guard let first = needle.first, haystack.count >= needle.count else { return [] }
        var found: [Int] = []
        haystack.withUnsafeBytes { hay in
            needle.withUnsafeBytes { pattern in
                guard let base = hay.baseAddress, let patternBase = pattern.baseAddress else { return }
                var offset = 0
                let last = hay.count - pattern.count
                while offset <= last {
                    guard let hit = memchr(base + offset, Int32(first), last - offset + 1) else { return }
                    let position = base.distance(to: UnsafeRawPointer(hit))
                    if memcmp(hit, patternBase, pattern.count) == 0 { found.append(position) }
                    offset = position + 1
                }
            }
        }
        return found
    }

    private static func context(_ bytes: [UInt8], around offset: Int, length: Int) -> String {
        let lower = max(offset - 24, 0)
        let upper = min(offset + length + 24, bytes.count)
        return String(bytes[lower..<upper].map { (0x20..<0x7f).contains($0) ? Character(UnicodeScalar($0)) : "." })
    }
}
