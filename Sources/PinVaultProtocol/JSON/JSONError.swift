/// Why a message is not acceptable JSON, and the byte offset where that was found.
///
/// Carries no content of the message: it may hold a PIN.
public struct JSONError: Error, Equatable, Sendable {
    /// What was wrong.
    public enum Reason: Equatable, Sendable {
        /// The input ended inside a value (or was empty).
        case unexpectedEnd
        /// A byte that cannot start or continue a value here.
        case unexpectedByte
        /// A number that breaks RFC 8259's grammar (leading zero, missing digits, `NaN`).
        case invalidNumber
        /// A backslash escape that is not one of RFC 8259's.
        case invalidEscape
        /// A `\u` escape naming half of a surrogate pair without its other half.
        case loneSurrogate
        /// A raw byte below 0x20 inside a string.
        case controlCharacter
        /// Bytes inside a string that are not well-formed UTF-8.
        case invalidUTF8
        /// Arrays and objects nested deeper than allowed.
        case tooDeep
        /// An object names the same key twice (compared after unescaping).
        case duplicateKey
        /// Something other than whitespace follows the value.
        case trailingData
    }

    /// What was wrong.
    public let reason: Reason
    /// Byte offset into the parsed buffer.
    public let offset: Int

    /// An error of `reason` at `offset`.
    public init(_ reason: Reason, at offset: Int) {
        self.reason = reason
        self.offset = offset
    }
}
