/// The verdict of `checkPin`: whether a candidate PIN meets the policy.
public struct PinCheck: Equatable, Sendable {
    /// True when the PIN breaks no rule.
    public var valid: Bool
    /// Every rule it breaks, in the policy's order (empty when valid).
    public var violations: [PinViolation]

    /// Each field as given.
    public init(valid: Bool, violations: [PinViolation]) {
        self.valid = valid
        self.violations = violations
    }
}
