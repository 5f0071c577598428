import PinVaultTestKit

/// `pam_pinvault.so` as the tests load it: staged with the libpinvault it links
/// (`StagedCModules`, `make stage`).
struct StagedModule {
    let path: String

    static func shared() throws -> StagedModule {
        StagedModule(path: try StagedCModules.shared().pamModule)
    }

    static func removeShared() {
        StagedCModules.removeShared()
    }
}
