import PinVaultCore
import PinVaultSystem

extension DenyList {
    /// Reads the deny list at `path` (`policy.deny_list`): a regular file of at most
    /// `maximumFileBytes`, parsed as `DenyList(parsing:file:)` says. Errors name the file.
    public init(contentsOfFile path: String) throws(DenyListError) {
        let contents: [UInt8]
        do {
            contents = try RegularFile.read(path: path, maxBytes: Self.maximumFileBytes)
        } catch {
            throw DenyListError(path: path, reason: error.description)
        }
        try self.init(parsing: contents, file: path)
    }
}
