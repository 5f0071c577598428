import PinVaultAgentDoor
import PinVaultClient
import PinVaultCrypto
import PinVaultSSHProtocol

/// Unlocking a key for a request: one request at a time asks (`unlockTurns`), and only
/// when the key still needs it; the PIN is tried `pinTries` times through the daemon's
/// PIN-check connection, and wrong PINs someone else typed are told.
extension UserAgentBackend {
    /// Asks for the PIN and unlocks `credential` — unless, once this request's turn to
    /// ask has come, another request has unlocked it meanwhile. A cancelled prompt sends
    /// nothing (no attempt counted); a wrong PIN is asked again, saying how many
    /// attempts are left; a throttled or blocked key is told and ends the request.
    func unlock(
        _ credential: Credential, description: @escaping @Sendable () -> PromptText, _ call: AgentCall,
        _ completion: @escaping (Bool) -> Void
    ) {
        unlockTurns.take { [self] release in
            let done: (Bool) -> Void = { unlocked in
                release()
                completion(unlocked)
            }
            guard !call.isCancelled() else { return done(false) }
            request(retrying: true, { () throws(PinVaultError) in
                try LoopCall.list(user: credential.user, purpose: .ssh)
            }, decode: LoopCall.credentials) { [self] result in
                guard case .success(let now) = result, let current = now.first(where: { $0.keyId == credential.keyId }) else {
                    return done(false)
                }
                if current.unlockedUntil != nil { return done(true) }
                // A key that takes no PIN now is told about, not asked for one.
                switch current.state {
                case .throttled:
                    let seconds = max(Int(((current.lockedUntil?.timeIntervalSinceNow) ?? 0).rounded(.up)), 1)
                    refuse("PinVault: too many wrong PINs for \(current.user): try again in \(seconds) s")
                    return done(false)
                case .blocked:
                    refuse("PinVault: the key of \(current.user) is blocked after too many wrong PINs; an administrator must unblock it")
                    return done(false)
                case .pendingUnregistration:
                    refuse("PinVault: the key of \(current.user) is being unregistered")
                    return done(false)
                case .active:
                    askForPIN(credential, description: description, call, tries: 0, error: nil, typedWrong: 0, done)
                }
            }
        }
    }

    /// One try of `pinTries`: the PIN asked (saying what was wrong with the last), then
    /// `Unlock` with it. `typedWrong`: the wrong PINs typed in this very prompt, which the
    /// user knows of.
    private func askForPIN(
        _ credential: Credential, description: @escaping @Sendable () -> PromptText, _ call: AgentCall,
        tries: Int, error: String?, typedWrong: Int, _ done: @escaping (Bool) -> Void
    ) {
        guard tries < Self.pinTries else { return done(false) }
        askPIN(description: description, error: error, call) { [self] pin in
            guard let pin else { return done(false) }
            // ssh left while the PIN was typed: it is not sent, and counts nothing.
            guard let pinChecks, !call.isCancelled() else {
                pin.wipe()
                return done(false)
            }
            let again = { [self] (error: String, typedWrong: Int) in
                askForPIN(credential, description: description, call, tries: tries + 1, error: error, typedWrong: typedWrong, done)
            }
            let frame: ReplyBuffer
            do throws(PinVaultError) {
                frame = try LoopCall.unlock(
                    user: credential.user, keyId: credential.keyId, pin: pin, ttl: .seconds(configuration.unlockTTLSeconds),
                    confirmEachUse: wantsConfirmation(credential),
                    allowForwarding: AgentConfiguration.names(
                        configuration.allowForwarding, keyId: credential.keyId, user: credential.user, label: credential.label
                    )
                )
            } catch {
                // Not a PIN the daemon takes (too long, not UTF-8): nothing was sent.
                return again("That is not a PIN: \(error.description)", typedWrong)
            }
            pinChecks.call(frame, decode: LoopCall.unlockSession) { [self] result in
                switch result {
                case .success(let session):
                    reportWrongPINs(session.failedAttemptsCleared - typedWrong, credential)
                    done(true)
                case .failure(let failure):
                    switch failure.code {
                    case .wrongPin:
                        let left = failure.remainingAttempts ?? 0
                        again("Wrong PIN: \(left) attempt\(left == 1 ? "" : "s") left", typedWrong + 1)
                    case .lockedOut, .credentialBlocked, .credentialWiped:
                        refuse("PinVault: " + failure.description)
                        done(false)
                    case .invalidParameter:
                        // Not a PIN the daemon takes: nothing was counted.
                        again("That is not a PIN: \(failure.description)", typedWrong)
                    case .conflict:
                        // The credential changed while the PIN was checked; nothing was counted.
                        again("The key changed meanwhile: type the PIN again", typedWrong)
                    case .tooManySessions:
                        refuse("PinVault: " + failure.description + " (pinvault lock ends sessions)")
                        done(false)
                    default:
                        done(false)
                    }
                }
            }
        }
    }

    /// Tells the user of wrong PINs a right one cleared that were not typed in this
    /// agent's prompt — someone else may have been guessing — in the words the CLI and
    /// PAM use, in a notice and in the log.
    private func reportWrongPINs(_ count: Int, _ credential: Credential) {
        guard let said = FailedAttempts.notice(count) else { return }
        let key = SSHKey.comment(user: credential.user, label: credential.label)
        logger.warning("key \(credential.keyId) (\(key)) unlocked: \(said)")
        notify("PinVault key \(key): \(said)")
    }
}
