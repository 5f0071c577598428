/// In-place readers of a PIN's UTF-8 bytes for `PinPolicy`. Nothing here copies the
/// PIN: scalars are decoded one at a time into locals.
enum PinScalars {
    /// U+FFFD, what an invalid UTF-8 sequence reads as.
    static let replacement: UInt32 = 0xFFFD

    /// Calls `body` with each scalar value of `bytes`, the byte offset just past it,
    /// and whether it was valid UTF-8 (an invalid sequence reads as U+FFFD), until
    /// `body` returns false.
    static func forEach(
        in bytes: UnsafeRawBufferPointer,
        _ body: (_ scalar: UInt32, _ end: Int, _ isValid: Bool) -> Bool
    ) {
        var iterator = bytes.makeIterator()
        var parser = Unicode.UTF8.ForwardParser()
        var offset = 0
        while true {
            let scalar: UInt32
            let isValid: Bool
            switch parser.parseScalar(from: &iterator) {
            case .valid(let encoded):
                scalar = Unicode.UTF8.decode(encoded).value
                offset += encoded.count
                isValid = true
            case .error(let length):
                scalar = replacement
                offset += length
                isValid = false
            case .emptyInput:
                return
            }
            guard body(scalar, offset, isValid) else { return }
        }
    }

    /// Whether `scalar` is an ASCII digit.
    static func isDigit(_ scalar: UInt32) -> Bool {
        scalar >= 0x30 && scalar <= 0x39
    }

    /// Whether some one scalar occurs more than `limit` times in `bytes`.
    ///
    /// For each scalar, counts its equals after it: the first occurrence of each value
    /// sees them all. Quadratic, with no table that would hold the PIN's characters;
    /// `PinPolicy` bounds the input length first.
    static func someScalarOccurs(moreThan limit: Int, in bytes: UnsafeRawBufferPointer) -> Bool {
        var exceeded = false
        forEach(in: bytes) { scalar, end, _ in
            var occurrences = 1
            forEach(in: UnsafeRawBufferPointer(rebasing: bytes[end...])) { other, _, _ in
                if other == scalar { occurrences += 1 }
                return occurrences <= limit
            }
            exceeded = occurrences > limit
            return !exceeded
        }
        return exceeded
    }

    /// Whether `digits` (ASCII digits only) is a run of at least 3 digits, each the
    /// previous plus 1 or each the previous minus 1, modulo 10.
    static func isDigitRun(_ digits: UnsafeRawBufferPointer) -> Bool {
        guard digits.count >= 3 else { return false }
        let step = (Int(digits[1]) - Int(digits[0]) + 10) % 10
        guard step == 1 || step == 9 else { return false }
        for index in 2..<digits.count
        where (Int(digits[index]) - Int(digits[index - 1]) + 10) % 10 != step {
            return false
        }
        return true
    }
}
