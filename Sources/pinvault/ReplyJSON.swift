import PinVaultClient

// The replies as `--json` prints them: the Varlink reply's own field names, in the
// interface's order, with its encodings. Absent optional fields are left out, as the
// daemon leaves them out.

extension Credential {
    /// The interface's `Credential` object.
    var json: JSONValue {
        var fields: [(String, JSONValue)] = [("user", .string(user)), ("keyId", .string(keyId))]
        if let label { fields.append(("label", .string(label))) }
        fields += [
            ("purpose", .string(purpose.rawValue)),
            ("algorithm", .string(algorithm.rawValue)),
            ("publicKey", .string(WireText.base64(publicKey))),
            ("ownerUid", .int(Int(ownerUid))),
            ("createdAt", .string(WireText.time(createdAt))),
        ]
        if let lastUsedAt { fields.append(("lastUsedAt", .string(WireText.time(lastUsedAt)))) }
        fields += [
            ("failedAttempts", .int(failedAttempts)),
            ("remainingAttempts", .int(remainingAttempts)),
            ("state", .string(state.rawValue)),
        ]
        if let lockedUntil { fields.append(("lockedUntil", .string(WireText.time(lockedUntil)))) }
        if let unregistrationExpiresAt {
            fields.append(("unregistrationExpiresAt", .string(WireText.time(unregistrationExpiresAt))))
        }
        if let unlockedUntil { fields.append(("unlockedUntil", .string(WireText.time(unlockedUntil)))) }
        if !sshCertificates.isEmpty {
            fields.append(("sshCertificates", .array(sshCertificates.map { .string(WireText.base64($0)) })))
        }
        return .object(fields)
    }
}

extension PinPolicy {
    /// The interface's `PinPolicy` object.
    var json: JSONValue {
        .object([
            ("minLength", .int(minLength)),
            ("maxLength", .int(maxLength)),
            ("digitsOnly", .bool(digitsOnly)),
            ("maxIdenticalDigits", .int(maxIdenticalDigits)),
            ("allowSequences", .bool(allowSequences)),
            ("denyListSize", .int(denyListSize)),
            ("throttleAfter", .int(throttleAfter)),
            ("maxAttempts", .int(maxAttempts)),
            ("onMaxAttempts", .string(onMaxAttempts.rawValue)),
        ])
    }
}

extension Stats {
    /// The interface's `Stats` object.
    var json: JSONValue {
        .object([
            ("requests", .int(requests)),
            ("authenticationsSucceeded", .int(authenticationsSucceeded)),
            ("authenticationsFailed", .int(authenticationsFailed)),
            ("lockouts", .int(lockouts)),
            ("kdfQueueDepth", .int(kdfQueueDepth)),
            ("kdfRunning", .int(kdfRunning)),
            ("kdfEvaluations", .int(kdfEvaluations)),
            ("activeConnections", .int(activeConnections)),
            ("uptimeSeconds", .int(uptimeSeconds)),
        ])
    }
}

extension PinCheck {
    /// CheckPin's reply.
    var json: JSONValue {
        .object([("valid", .bool(valid)), ("violations", .array(violations.map { .string($0.rawValue) }))])
    }
}

extension Authentication {
    /// Authenticate's reply.
    var json: JSONValue {
        .object([
            ("keyId", .string(keyId)),
            ("publicKey", .string(WireText.base64(publicKey))),
            ("signature", .string(WireText.base64(signature))),
            ("pinPolicyOutdated", .bool(pinPolicyOutdated)),
            ("failedAttemptsCleared", .int(failedAttemptsCleared)),
        ])
    }
}

extension PendingUnregistration {
    /// BeginUnregister's reply; the token is written from its secret memory.
    var json: JSONValue {
        .object([
            ("keyId", .string(keyId)), ("token", .token(token)), ("expiresAt", .string(WireText.time(expiresAt))),
            ("failedAttemptsCleared", .int(failedAttemptsCleared)),
        ])
    }
}

extension WipeResult {
    /// Wipe's reply.
    var json: JSONValue {
        .object([
            ("user", .string(user)), ("deletedKeyIds", .array(deletedKeyIds.map { .string($0) })),
            ("failedAttemptsCleared", .int(failedAttemptsCleared)),
        ])
    }
}

extension UnlockSession {
    /// Unlock's reply.
    var json: JSONValue {
        .object([
            ("keyId", .string(keyId)),
            ("unlockedUntil", .string(WireText.time(unlockedUntil))),
            ("failedAttemptsCleared", .int(failedAttemptsCleared)),
        ])
    }
}
