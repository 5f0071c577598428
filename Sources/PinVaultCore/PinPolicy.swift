import PinVaultCrypto

/// The rules a new PIN must meet (config `[policy]`, config/pinvaultd.toml).
///
/// `violations(of:current:)` reads the PIN's UTF-8 bytes in place: no character of it
/// is copied into a Swift `String`, `Array` or table. Lengths count Unicode scalars,
/// which for a digit PIN is the number of digits.
public struct PinPolicy: Sendable, Equatable {
    /// The fewest characters a PIN may have.
    public var minLength: Int
    /// The most characters a PIN may have.
    public var maxLength: Int
    /// Whether only the ASCII digits 0–9 are allowed.
    public var digitsOnly: Bool
    /// The most times any one character may occur anywhere in the PIN.
    public var maxIdenticalDigits: Int
    /// Whether a PIN that is wholly a run of digits (123456, 987654) is allowed.
    public var allowSequences: Bool
    /// PINs refused for being common.
    public var denyList: DenyList

    /// A policy; every parameter defaults to the documented default.
    public init(
        minLength: Int = 6,
        maxLength: Int = 64,
        digitsOnly: Bool = true,
        maxIdenticalDigits: Int = 3,
        allowSequences: Bool = false,
        denyList: DenyList = .empty
    ) {
        self.minLength = minLength
        self.maxLength = maxLength
        self.digitsOnly = digitsOnly
        self.maxIdenticalDigits = maxIdenticalDigits
        self.allowSequences = allowSequences
        self.denyList = denyList
    }

    /// Every rule `pin` breaks, in `PinViolation` declaration order; empty when the
    /// PIN is acceptable.
    ///
    /// - An empty PIN is reported as `[.empty]` alone: it is not also `tooShort`.
    /// - Bytes that are not valid UTF-8 are read as U+FFFD (as `String(decoding:)`
    ///   would, one per maximal invalid subsequence) and make the PIN `notDigits`
    ///   whatever `digitsOnly` says: such a PIN cannot be typed again, nor sent in JSON.
    /// - `tooManyIdenticalDigits` counts every character, not only digits, and
    ///   anywhere in the PIN, not only in a row (112121 has four 1s).
    /// - `sequential` applies to PINs of at least 3 ASCII digits whose every digit is
    ///   the previous one plus 1, or every digit the previous one minus 1, modulo 10:
    ///   123456, 987654, 0123456789, and also the wrapping 890123 and 210987, which are
    ///   no harder to guess. 135790 and 123455 are not runs.
    /// - A PIN of more than 4 × `maxLength` bytes has more than `maxLength` scalars
    ///   whatever it holds; it is reported as `tooLong` (and `sameAsCurrent`, when
    ///   equal) without its characters being read, so the cost of a check stays
    ///   bounded by the policy (the identical-character rule is quadratic in length).
    /// - `current` (ChangePin) adds `sameAsCurrent` when the two are equal, compared in
    ///   constant time.
    public func violations(of pin: SecretBytes, current: SecretBytes? = nil) -> [PinViolation] {
        var found = pin.withUnsafeBytes { bytes in violations(ofBytes: bytes) }
        if let current, found != [.empty], pin.constantTimeEquals(current) {
            found.append(.sameAsCurrent)
        }
        return found
    }

    /// The rules other than `sameAsCurrent`.
    private func violations(ofBytes pin: UnsafeRawBufferPointer) -> [PinViolation] {
        guard !pin.isEmpty else { return [.empty] }
        guard (pin.count + 3) / 4 <= maxLength else { return [.tooLong] }

        var length = 0
        var isValidUTF8 = true
        var isAllDigits = true
        PinScalars.forEach(in: pin) { scalar, _, isValid in
            length += 1
            if !isValid { isValidUTF8 = false }
            if !PinScalars.isDigit(scalar) { isAllDigits = false }
            return true
        }

        var found: [PinViolation] = []
        if !isValidUTF8 || (digitsOnly && !isAllDigits) { found.append(.notDigits) }
        if length < minLength { found.append(.tooShort) }
        if length > maxLength { found.append(.tooLong) }
        if PinScalars.someScalarOccurs(moreThan: maxIdenticalDigits, in: pin) {
            found.append(.tooManyIdenticalDigits)
        }
        if !allowSequences, isAllDigits, PinScalars.isDigitRun(pin) { found.append(.sequential) }
        if denyList.contains(pin) { found.append(.denyListed) }
        return found
    }
}
