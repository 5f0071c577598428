import Glibc

/// Built plainly (`swift build`), the fuzz target is a regression runner: it feeds
/// every file named on the command line, or every file of each directory named, through
/// the same function libFuzzer calls, and exits 0 when none trapped.
///
///     pinvault-fuzz Fuzz/corpus
///
/// Built by `make fuzz` (`-DPINVAULT_FUZZ`, coverage instrumentation, linked with
/// libFuzzer's library without its `main`), it hands the command line to libFuzzer's
/// driver instead. SwiftPM gives every executable its own entry point, which is why
/// libFuzzer's `main` cannot be used.
@main
struct FuzzMain {
    /// `int LLVMFuzzerRunDriver(int *argc, char ***argv, int (*)(const uint8_t *, size_t))`
    typealias Driver = @convention(c) (
        UnsafeMutablePointer<Int32>,
        UnsafeMutablePointer<UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>>,
        @convention(c) (UnsafePointer<UInt8>?, Int) -> Int32
    ) -> Int32

    static func main() {
        #if PINVAULT_FUZZ
        guard let symbol = dlsym(UnsafeMutableRawPointer(bitPattern: 0), "LLVMFuzzerRunDriver") else {
            FuzzHarness.trap("libFuzzer is not linked in; build with make fuzz")
        }
        let driver = unsafeBitCast(symbol, to: Driver.self)
        var argc = CommandLine.argc
        var argv = CommandLine.unsafeArgv
        exit(driver(&argc, &argv) { fuzzTestOneInput($0, $1) })
        #else
        replay(CommandLine.arguments.dropFirst())
        #endif
    }

    private static func replay(_ arguments: ArraySlice<String>) {
        guard !arguments.isEmpty else {
            FuzzHarness.trap("usage: pinvault-fuzz FILE-OR-DIRECTORY...")
        }
        var count = 0
        for argument in arguments {
            for path in files(at: argument).sorted() {
                guard let bytes = read(path) else { FuzzHarness.trap("cannot read \(path)") }
                _ = bytes.withUnsafeBufferPointer { fuzzTestOneInput($0.baseAddress, $0.count) }
                count += 1
            }
        }
        print("replayed \(count) inputs")
    }

    /// `path` itself, or the regular files directly inside it.
    private static func files(at path: String) -> [String] {
        guard let directory = opendir(path) else { return [path] }
        defer { closedir(directory) }
        var result: [String] = []
        while let entry = readdir(directory) {
            let name = withUnsafeBytes(of: entry.pointee.d_name) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }
            guard !name.hasPrefix(".") else { continue }
            result.append(path + "/" + name)
        }
        return result
    }

    private static func read(_ path: String) -> [UInt8]? {
        guard let file = fopen(path, "rb") else { return nil }
        defer { fclose(file) }
        var bytes: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 65536)
        while true {
            let n = fread(&chunk, 1, chunk.count, file)
            bytes += chunk[..<n]
            if n < chunk.count { return ferror(file) == 0 ? bytes : nil }
        }
    }
}
