/// Why a message is not CBOR this codec reads, each with the status byte a CTAP
/// authenticator answers for it (CTAP 2.1 §8.2.1's table of status codes).
public enum CBORError: Error, Equatable, Sendable {
    /// Not well-formed, or outside the subset CTAP uses: truncated, trailing bytes, an
    /// indefinite length, a tag, a float, `undefined`, invalid UTF-8, a map key that is
    /// neither an integer nor text, a duplicate key, nesting deeper than the limit.
    case invalidCBOR
    /// Longer than the largest message read (`CBORLimits.maximumMessageSize`).
    case invalidLength
    /// Well-formed, but an item of another type than the command's parameter wants.
    case unexpectedType
    /// A required parameter absent.
    case missingParameter

    /// CTAP2_ERR_INVALID_CBOR, CTAP1_ERR_INVALID_LENGTH, CTAP2_ERR_CBOR_UNEXPECTED_TYPE,
    /// CTAP2_ERR_MISSING_PARAMETER.
    public var ctapStatus: UInt8 {
        switch self {
        case .invalidCBOR: return 0x12
        case .invalidLength: return 0x03
        case .unexpectedType: return 0x11
        case .missingParameter: return 0x14
        }
    }
}
