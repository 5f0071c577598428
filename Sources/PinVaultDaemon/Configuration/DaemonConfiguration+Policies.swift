import PinVaultConfiguration
import PinVaultCore

extension DaemonConfiguration {
    /// Keys of `[policy]`.
    static let policyKeys = [
        "min_length", "max_length", "digits_only", "max_identical_digits", "allow_sequences", "deny_list",
    ]

    /// Keys of `[lockout]`.
    static let lockoutKeys = [
        "throttle_after", "throttle_base_seconds", "throttle_max_seconds", "max_attempts", "on_max_attempts",
    ]

    /// The longest PIN a policy may allow, in characters.
    static let maximumPinLength: Int64 = 256

    /// Reads `[policy]` over the defaults. `deny_list` names a file, relative paths
    /// resolved against `directory` (the configuration file's); absent or "" means no
    /// deny list.
    static func policy(_ section: ConfigurationSection, directory: String) throws(ConfigurationError) -> PinPolicy {
        try section.refuseUnknownKeys(policyKeys)
        var policy = PinPolicy()
        if let value = try section.integer("min_length", in: 1...maximumPinLength) { policy.minLength = Int(value) }
        if let value = try section.integer("max_length", in: 1...maximumPinLength) { policy.maxLength = Int(value) }
        guard policy.minLength <= policy.maxLength else {
            throw section.error(
                section.either("min_length", "max_length"),
                "policy.min_length (\(policy.minLength)) must not exceed policy.max_length (\(policy.maxLength))"
            )
        }
        if let value = try section.boolean("digits_only") { policy.digitsOnly = value }
        if let value = try section.integer("max_identical_digits", in: 1...maximumPinLength) {
            policy.maxIdenticalDigits = Int(value)
        }
        if let value = try section.boolean("allow_sequences") { policy.allowSequences = value }
        if let path = try section.string("deny_list"), !path.isEmpty {
            let resolved = path.hasPrefix("/") ? path : directory + "/" + path
            do {
                policy.denyList = try DenyList(contentsOfFile: resolved)
            } catch {
                throw section.error("deny_list", "cannot load the deny list: \(error)")
            }
        }
        return policy
    }

    /// Reads `[lockout]` over the defaults.
    static func lockout(_ section: ConfigurationSection) throws(ConfigurationError) -> LockoutPolicy {
        try section.refuseUnknownKeys(lockoutKeys)
        var lockout = LockoutPolicy()
        if let value = try section.integer("max_attempts", in: 1...1000) { lockout.maxAttempts = Int(value) }
        if let value = try section.integer("throttle_after", in: 1...1000) { lockout.throttleAfter = Int(value) }
        guard lockout.throttleAfter <= lockout.maxAttempts else {
            throw section.error(
                section.either("throttle_after", "max_attempts"),
                "lockout.throttle_after (\(lockout.throttleAfter)) must not exceed lockout.max_attempts (\(lockout.maxAttempts))"
            )
        }
        if let value = try section.integer("throttle_base_seconds", in: 1...86400) { lockout.throttleBaseSeconds = value }
        if let value = try section.integer("throttle_max_seconds", in: 1...2_592_000) { lockout.throttleMaxSeconds = value }
        guard lockout.throttleBaseSeconds <= lockout.throttleMaxSeconds else {
            throw section.error(
                section.either("throttle_max_seconds", "throttle_base_seconds"),
                "lockout.throttle_max_seconds (\(lockout.throttleMaxSeconds)) must be at least lockout.throttle_base_seconds (\(lockout.throttleBaseSeconds))"
            )
        }
        if let value = try section.choice("on_max_attempts", of: OnMaxAttempts.allCases.map(\.rawValue)),
           let choice = OnMaxAttempts(rawValue: value) {
            lockout.onMaxAttempts = choice
        }
        return lockout
    }
}
