import Glibc

/// Whether this build — the tests and the pinvaultd beside them, which `make sanitize`
/// builds together — runs under AddressSanitizer or ThreadSanitizer. Their runtimes
/// add memory (shadow, quarantine) and time to every access, so a figure of memory
/// or speed measured under them is theirs, not the daemon's.
enum SanitizedBuild {
    static let sanitizer: String? = {
        if dlsym(nil, "__tsan_init") != nil { return "ThreadSanitizer" }
        if dlsym(nil, "__asan_init") != nil { return "AddressSanitizer" }
        return nil
    }()
}
