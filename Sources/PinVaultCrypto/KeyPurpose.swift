/// What a credential's key is for (SECURITY.md "Signature domains"). It is chosen at
/// Register, sealed into the record's header (format versions 2 and 3, docs/FORMAT.md), and
/// never changes: another purpose is another credential.
///
/// The cases are generated from the interface's `Credential.purpose`
/// (io.pinvault.Vault.varlink), which says what each purpose is for. A purpose is three
/// lines: its value there, its header byte below, and its row in the engine's
/// `KeyAccess` (which front door and method may use a key of it). Everything else —
/// the store's purposes table, Register's and the command line's choices, libpinvault's
/// `pinvault_purpose` — follows from those, or is checked against them.
///
/// `legacy` is what a credential made before purposes existed reads as (format version
/// 1, which holds no purpose byte): it keeps working where it worked, under the shape
/// checks of every door. Register never makes one.
extension KeyPurpose {
    /// The byte format versions 2 and 3 write into the header, one per purpose and never
    /// reused; nil for `legacy`, whose records (format version 1) have none.
    public var headerByte: UInt8? {
        switch self {
        case .authenticate: 1
        case .ssh: 2
        case .login: 3
        case .webauthn: 4
        case .legacy: nil
        }
    }

    /// The purposes Register may give a new credential: all but `legacy`, in the
    /// interface's order.
    public static let registrable: [KeyPurpose] = allCases.filter { $0.headerByte != nil }
}
