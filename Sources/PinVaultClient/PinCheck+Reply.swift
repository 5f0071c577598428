import PinVaultProtocol

extension PinCheck {
    /// Decodes a `CheckPin` reply: `valid`, `violations`.
    static func decode(_ reply: ParameterDecoder) throws(ParameterError) -> PinCheck {
        let valid = try reply.bool("valid", required: true) ?? false
        let violations = try reply.strings("violations", required: true, bytes: 1...64) ?? []
        return PinCheck(valid: valid, violations: violations.map(PinViolation.init(rawValue:)))
    }
}
