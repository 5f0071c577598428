import PinVaultCrypto

/// Test PINs as secret bytes.
func secret(_ text: String) throws -> SecretBytes {
    var text = text
    return try text.withUTF8 { try SecretBytes(copying: UnsafeRawBufferPointer($0)) }
}

/// Raw bytes (possibly not UTF-8) as secret bytes.
func secret(bytes: [UInt8]) throws -> SecretBytes {
    try bytes.withUnsafeBytes { try SecretBytes(copying: $0) }
}

/// The repository's root, found from this file's path.
let repositoryRoot: String = {
    var path = #filePath
    for _ in 0..<3 {
        path = String(path[..<(path.lastIndex(of: "/") ?? path.startIndex)])
    }
    return path
}()
