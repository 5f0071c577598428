import CPinVaultSystem
import Foundation
import Glibc
import PinVaultSystem

/// Another process's memory, read through `/proc/PID/smaps` and `/proc/PID/mem` (root,
/// or a ptrace-capable reader, only), searched for byte strings: to prove that the
/// daemon keeps no copy of a PIN, token, seed or key once a request is done.
///
/// Every mapping is read whole, whatever its permissions (`/proc/PID/mem` reads a
/// guard page or a `PROT_NONE` reservation as the kernel holds it), except those a
/// secret cannot be in, each left out for a stated `Exclusion`; a mapping that should
/// have been read and was not (an error, a short read) is reported in `Scan.unread`,
/// and a caller must treat any as a failed scan, never as a clean one.
public struct MemoryImage {
    /// One mapping of `/proc/PID/smaps`.
    public struct Region: CustomStringConvertible, Sendable {
        public let start: UInt64
        public let end: UInt64
        public let permissions: String
        /// `[heap]`, `[stack]`, a file path, or empty for an anonymous mapping.
        public let name: String
        /// Resident, swapped and locked KiB (`Rss`, `Swap`, `Locked`).
        public let residentKiB: Int
        public let swapKiB: Int
        public let lockedKiB: Int
        /// The kernel's flags for the mapping (`VmFlags`: `rd wr mr mw me ac`…).
        public let flags: [String]

        public var size: UInt64 { end - start }
        public var isWritable: Bool { permissions.dropFirst().first == "w" }
        /// Backed by a file (not anonymous memory, not a `[kernel]` mapping).
        public var isFile: Bool { name.hasPrefix("/") }

        public var description: String {
            let label = name.isEmpty ? "anonymous" : name
            return "\(label) \(permissions) \(String(start, radix: 16))-\(String(end, radix: 16)) "
                + "(\(size >> 10) KiB, \(residentKiB) KiB resident, \(lockedKiB) KiB locked, flags \(flags.joined(separator: " ")))"
        }
    }

    /// Why a mapping is left out of the scan.
    public enum Exclusion: String, CustomStringConvertible, Sendable {
        /// A file mapped without write permission (code, constants, RELRO): the bytes of
        /// the file, which the process cannot change.
        case readOnlyFile = "read-only file mapping: the file's own bytes"
        /// `[vvar]`, `[vvar_vclock]`, `[vsyscall]`: the kernel's pages for the vDSO (clock
        /// data), which `/proc/PID/mem` does not read and the process cannot write.
        case kernelPages = "the kernel's vDSO pages"
        /// No page resident and none swapped: never touched, so nothing but zeroes (or a
        /// private file mapping's unchanged file bytes).
        case neverTouched = "no page resident or swapped"
        /// AddressSanitizer's or ThreadSanitizer's shadow: anonymous mappings inside the
        /// address range its runtime reserves for it (`Sanitizer.shadow`, terabytes),
        /// which hold its bookkeeping about the program's memory (poisoning, access
        /// history, sync objects), never the program's bytes — those are in the
        /// runtime's heap, which is scanned.
        case sanitizerShadow = "a sanitizer's shadow memory (its bookkeeping, not the program's bytes)"

        public var description: String { rawValue }
    }

    /// One place where a needle was found.
    public struct Match: CustomStringConvertible, Sendable {
        /// The needle's label (e.g. "PIN 3").
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

    /// What one scan read, left out and found.
    public struct Scan: Sendable {
        public var matches: [Match] = []
        /// Bytes read and searched.
        public var readBytes: UInt64 = 0
        /// Mappings read whole.
        public var readRegions = 0
        /// Mappings left out, each with why.
        public var excluded: [(region: Region, reason: Exclusion)] = []
        /// Mappings the scan meant to read and could not read whole, with the error: a
        /// scan with any of these saw less than the process holds.
        public var unread: [(region: Region, error: String)] = []
        /// Pages inside mappings that the kernel marks as guard pages (`MADV_GUARD_INSTALL`):
        /// every read of one faults, and it holds nothing.
        public var guardPages = 0
        /// Mappings unmapped (or replaced) by the process while they were being read (a
        /// pool's Argon2id memory freed, a thread's stack gone): what was not read of
        /// them is gone from the process too, so they do not make the scan incomplete.
        public var vanished: [Region] = []
        /// How long the scan took, in seconds.
        public var seconds: Double = 0

        /// One line: what was read, and what was left out by reason.
        public var summary: String {
            var byReason: [Exclusion: (count: Int, bytes: UInt64)] = [:]
            for (region, reason) in excluded {
                byReason[reason, default: (0, 0)].count += 1
                byReason[reason, default: (0, 0)].bytes += region.size
            }
            let left = byReason.sorted { $0.key.rawValue < $1.key.rawValue }
                .map { "\($0.value.count) × \($0.key) (\($0.value.bytes >> 20) MiB mapped)" }
            return "read \(readRegions) mappings, \(readBytes >> 10) KiB, in \(String(format: "%.2f", seconds)) s; "
                + "left out: " + (left.isEmpty ? "none" : left.joined(separator: ", "))
                + (guardPages == 0 ? "" : "; \(guardPages) guard pages inside mappings")
                + (vanished.isEmpty ? "" : "; unmapped while read: " + vanished.map(\.description).joined(separator: ", "))
                + (unread.isEmpty ? "" : "; UNREAD: " + unread.map { "\($0.region): \($0.error)" }.joined(separator: "; "))
        }
    }

    public let pid: Int32

    public init(pid: Int32) {
        self.pid = pid
    }

    /// Every mapping, with its resident, swapped and locked sizes.
    public func regions() throws -> [Region] {
        let smaps = try Self.readProcFile("/proc/\(pid)/smaps")
        var regions: [Region] = []
        var header: (start: UInt64, end: UInt64, permissions: String, name: String)?
        var fields: [String: Int] = [:]
        var flags: [String] = []
        func finish() {
            guard let header else { return }
            regions.append(Region(
                start: header.start, end: header.end, permissions: header.permissions, name: header.name,
                residentKiB: fields["Rss"] ?? 0, swapKiB: fields["Swap"] ?? 0, lockedKiB: fields["Locked"] ?? 0,
                flags: flags
            ))
        }
        for line in smaps.split(separator: "\n") {
            let parts = line.split(separator: " ", maxSplits: 5, omittingEmptySubsequences: true)
            if let first = parts.first, first.contains("-"), !first.hasSuffix(":") {
                let bounds = first.split(separator: "-")
                guard parts.count >= 5, bounds.count == 2,
                      let start = UInt64(bounds[0], radix: 16), let end = UInt64(bounds[1], radix: 16)
                else { throw TestKitError("unreadable line in /proc/\(pid)/smaps: \(line)") }
                finish()
                let name = parts.count == 6 ? parts[5].trimmingCharacters(in: .whitespaces) : ""
                header = (start, end, String(parts[1]), name)
                fields = [:]
                flags = []
            } else if parts.first == "VmFlags:" {
                flags = line.split(separator: " ").dropFirst().map(String.init)
            } else if parts.count >= 2, parts[0].hasSuffix(":"), let value = Int(parts[1]) {
                fields[String(parts[0].dropLast())] = value
            }
        }
        finish()
        return regions
    }

    /// A /proc file read to its end (Foundation trusts the size `stat` gives, 0 for
    /// these, and stops short).
    static func readProcFile(_ path: String) throws -> String {
        do {
            let fd = try Syscall.run("open") { open(path, O_RDONLY | O_CLOEXEC) }
            defer { close(fd) }
            var bytes: [UInt8] = []
            var chunk = [UInt8](repeating: 0, count: 65536)
            while true {
                let n = try chunk.withUnsafeMutableBytes { raw throws(SystemError) in
                    try Syscall.run("read") { read(fd, raw.baseAddress, raw.count) }
                }
                if n == 0 { return String(decoding: bytes, as: UTF8.self) }
                bytes += chunk[..<n]
            }
        } catch {
            throw TestKitError("\(path): \(error)")
        }
    }

    /// The largest mapping the scan reads; a larger one it does not leave out is
    /// reported unread rather than read for hours.
    static let largestReadable: UInt64 = 64 << 30

    /// Why `region` is left out, or nil when it is to be read. `sanitizer` is the one
    /// the process runs, if any.
    static func exclusion(of region: Region, sanitizer: Sanitizer?) -> Exclusion? {
        if ["[vvar]", "[vvar_vclock]", "[vsyscall]"].contains(region.name) { return .kernelPages }
        if region.isFile && !region.isWritable { return .readOnlyFile }
        if region.residentKiB == 0 && region.swapKiB == 0 { return .neverTouched }
        if let shadow = sanitizer?.shadow, region.name.isEmpty,
           shadow.contains(region.start), region.end <= shadow.upperBound {
            return .sanitizerShadow
        }
        return nil
    }

    /// Every occurrence of each needle in every mapping not excluded, read in chunks
    /// through `/proc/PID/mem`. Throws only when the memory cannot be opened at all;
    /// a mapping that cannot be read whole goes to `Scan.unread`.
    public func scan(_ needles: [(label: String, bytes: [UInt8])]) throws -> Scan {
        let started = Date()
        let fd = open("/proc/\(pid)/mem", O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { throw TestKitError("open /proc/\(pid)/mem: errno \(errno)") }
        defer { close(fd) }
        let pagemap = open("/proc/\(pid)/pagemap", O_RDONLY | O_CLOEXEC)
        defer { if pagemap >= 0 { close(pagemap) } }
        let needles = needles.filter { !$0.bytes.isEmpty }
        let longest = needles.map(\.bytes.count).max() ?? 0
        // A match may straddle two chunks: each chunk after the first starts this much
        // before the previous one's end, which also keeps 32 bytes before any match.
        let overlap = longest + 32
        let chunkSize = 16 << 20
        let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: chunkSize + overlap, alignment: 16)
        defer { buffer.deallocate() }

        let regions = try regions()
        let sanitizer = Sanitizer.of(pid: pid)
        var scan = Scan()
        for region in regions {
            if let reason = Self.exclusion(of: region, sanitizer: sanitizer) {
                scan.excluded.append((region, reason))
                continue
            }
            guard region.size <= Self.largestReadable else {
                scan.unread.append((region, "\(region.size >> 30) GiB, larger than the scan reads"))
                continue
            }
            // A mapping unmapped while it is read, and mapped again at once with the same
            // bounds (a thread's stack, a runtime's scratch memory), reads as an error:
            // the same mapping is read again, up to three times, before it counts.
            var attempt = 0
            while true {
                attempt += 1
                var found: [Match] = []
                var readBytes: UInt64 = 0
                let failure = readWhole(region, fd: fd, pagemap: pagemap, buffer: buffer, overlap: overlap,
                                   needles: needles, matches: &found, readBytes: &readBytes, guardPages: &scan.guardPages)
                // What a read found counts once: from the read that ends the attempts.
                guard let failure else {
                    scan.matches += found
                    scan.readBytes += readBytes
                    scan.readRegions += 1
                    break
                }
                let now = (try? self.regions()) ?? []
                let stillThere = now.contains {
                    $0.start == region.start && $0.end == region.end && $0.permissions == region.permissions
                        && $0.start <= failure.address && failure.address < $0.end
                }
                if !stillThere {
                    scan.matches += found
                    scan.vanished.append(region)
                    break
                }
                if attempt == 3 {
                    scan.matches += found
                    scan.unread.append((region, failure.error + " (three reads)"))
                    break
                }
                usleep(20_000)
            }
        }
        scan.seconds = Date().timeIntervalSince(started)
        return scan
    }

    /// Reads `region` whole in chunks, searching each for `needles`; returns where and
    /// why it stopped, or nil when it read it all.
    private func readWhole(
        _ region: Region, fd: Int32, pagemap: Int32, buffer: UnsafeMutableRawBufferPointer, overlap: Int,
        needles: [(label: String, bytes: [UInt8])], matches: inout [Match], readBytes: inout UInt64,
        guardPages: inout Int
    ) -> (address: UInt64, error: String)? {
        guard let base = buffer.baseAddress else { return (region.start, "no buffer") }
        let chunkSize = buffer.count - overlap
        var offset: UInt64 = 0
        var carried = 0
        while offset < region.size {
            let wanted = Int(min(UInt64(chunkSize), region.size - offset))
            let got = pread(fd, base + carried, wanted, off_t(Int(bitPattern: UInt(region.start + offset))))
            if got != wanted {
                // Page by page from where it stopped: a guard page the kernel marks as
                // such (MADV_GUARD_INSTALL, not a mapping of its own) faults on every
                // read and holds nothing; any other page that cannot be read fails.
                let from = max(got, 0) / Self.pageSize * Self.pageSize
                if let error = readPageByPage(
                    fd, pagemap: pagemap, into: base + carried, range: from..<wanted,
                    regionStart: region.start, offset: offset, guardPages: &guardPages
                ) {
                    return (region.start + offset + UInt64(error.at), error.text)
                }
            }
            let filled = carried + wanted
            let chunkStart = region.start + offset - UInt64(carried)
            let bytes = UnsafeRawBufferPointer(rebasing: buffer[..<filled])
            for needle in needles {
                for position in Self.occurrences(of: needle.bytes, in: bytes) where position + needle.bytes.count > carried {
                    matches.append(Match(
                        needle: needle.label,
                        address: chunkStart + UInt64(position),
                        region: region,
                        context: Self.context(bytes, around: position, length: needle.bytes.count),
                        preceding: Array(bytes[max(position - 32, 0)..<position])
                    ))
                }
            }
            readBytes += UInt64(wanted)
            offset += UInt64(wanted)
            // Keep the tail for the next chunk.
            carried = min(overlap, filled)
            base.copyMemory(from: base + filled - carried, byteCount: carried)
        }
        return nil
    }

    static let pageSize = Int(sysconf(Int32(_SC_PAGESIZE)))
    /// `/proc/PID/pagemap`'s bit for a guard page (`PM_GUARD_REGION`, Linux 6.15).
    static let guardRegionBit: UInt64 = 1 << 58

    /// Reads `range` of the chunk at `offset` into `destination` one page at a time,
    /// zero-filling and counting guard pages; returns the first other page that cannot
    /// be read, as its offset in the chunk and the error.
    private func readPageByPage(
        _ fd: Int32, pagemap: Int32, into destination: UnsafeMutableRawPointer, range: Range<Int>,
        regionStart: UInt64, offset: UInt64, guardPages: inout Int
    ) -> (at: Int, text: String)? {
        var page = range.lowerBound
        while page < range.upperBound {
            let count = min(Self.pageSize, range.upperBound - page)
            let address = regionStart + offset + UInt64(page)
            let got = pread(fd, destination + page, count, off_t(Int(bitPattern: UInt(address))))
            if got != count {
                let error = errno
                var entry: UInt64 = 0
                let index = off_t(Int(bitPattern: UInt(address / UInt64(Self.pageSize) * 8)))
                let isGuard = pagemap >= 0 && pread(pagemap, &entry, 8, index) == 8 && entry & Self.guardRegionBit != 0
                guard isGuard else {
                    return (page, got < 0 ? "errno \(error) at +\(offset + UInt64(page))" : "read \(got) of \(count) bytes at +\(offset + UInt64(page))")
                }
                memset(destination + page, 0, count)
                guardPages += 1
            }
            page += count
        }
        return nil
    }

    /// Offsets of `needle` in `haystack` (glibc's `memmem`, tens of GB/s).
    static func occurrences(of needle: [UInt8], in haystack: UnsafeRawBufferPointer) -> [Int] {
        guard let base = haystack.baseAddress, haystack.count >= needle.count else { return [] }
        var found: [Int] = []
        needle.withUnsafeBytes { pattern in
            guard let patternBase = pattern.baseAddress else { return }
            var offset = 0
            while offset + pattern.count <= haystack.count {
                guard let hit = CPinVaultSystem_memmem(base + offset, haystack.count - offset, patternBase, pattern.count) else { return }
                let position = base.distance(to: UnsafeRawPointer(hit))
                found.append(position)
                offset = position + 1
            }
        }
        return found
    }

    private static func context(_ bytes: UnsafeRawBufferPointer, around offset: Int, length: Int) -> String {
        let lower = max(offset - 24, 0)
        let upper = min(offset + length + 24, bytes.count)
        return String(bytes[lower..<upper].map { (0x20..<0x7f).contains($0) ? Character(UnicodeScalar($0)) : "." })
    }
}
