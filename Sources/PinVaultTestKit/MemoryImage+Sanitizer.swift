import Foundation

extension MemoryImage {
    /// The sanitizer a process runs, found by its runtime's entry points in the binary
    /// (Swift links the runtimes in statically), and where that runtime keeps its shadow
    /// on x86_64 Linux (compiler-rt's `asan_mapping.h`, and `tsan_platform.h`'s
    /// `Mapping48AddressSpace`: shadow and meta shadow).
    enum Sanitizer {
        case address
        case thread

        var shadow: Range<UInt64> {
            switch self {
            case .address: 0x0000_7fff_8000..<0x1000_7fff_8000
            case .thread: 0x1000_0000_0000..<0x3800_0000_0000
            }
        }

        static func of(pid: Int32) -> Sanitizer? {
            guard let binary = try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/\(pid)/exe"),
                  let handle = FileHandle(forReadingAtPath: binary)
            else { return nil }
            defer { try? handle.close() }
            var seen = Data()
            while let chunk = try? handle.read(upToCount: 8 << 20), !chunk.isEmpty {
                seen = seen.suffix(64) + chunk
                // Entry points the instrumented code calls, each only in its own runtime
                // (ASan's runtime names __tsan_init in a message, so not that one).
                if seen.range(of: Data("__tsan_read8".utf8)) != nil { return .thread }
                if seen.range(of: Data("__asan_report_load8".utf8)) != nil { return .address }
            }
            return nil
        }
    }
}
