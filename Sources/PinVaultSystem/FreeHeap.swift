import CPinVaultSystem

/// The heap's free pages, given back to the kernel (glibc's `malloc_trim(0)`, every
/// arena): for the end of start-up, whose transient allocations — the configuration,
/// the deny list, the store's schema checks, the records' sweep — leave about half a
/// MiB free but resident in a daemon that then idles for hours.
public enum FreeHeap {
    public static func release() {
        _ = CPinVaultSystem_release_free_heap()
    }
}
