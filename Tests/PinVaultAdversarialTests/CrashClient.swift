import Foundation
import PinVaultTestKit

/// One client of the crash-consistency test: it runs Register, ChangePin, wrong and
/// right Authenticate, BeginUnregister/CommitUnregister/AbortUnregister and Wipe on
/// its own credentials until the daemon dies under it, keeping a `CredentialModel`
/// of each. After the restart, `reconcile` checks the daemon against the models and
/// settles what the cut-off call did.
final class CrashClient: @unchecked Sendable {
    /// PINs the test policy accepts (six digits, no run, not on the deny list).
    static let pins = ["258046", "370591", "481620", "592731", "603842", "714953", "825064", "936175"]
    static let wrongPin = "999999"
    /// Wrong PINs a client sends before a right one: far under `max_attempts`.
    static let maxWrongInARow = 3
    static let maxAttempts = 50

    let id: Int
    private(set) var models: [CredentialModel] = []
    private var serial = 0
    private var generator = SystemRandomNumberGenerator()
    private let failures: FailureLog
    /// Operations answered, over the whole test.
    private(set) var answered = 0

    init(id: Int, failures: FailureLog) {
        self.id = id
        self.failures = failures
    }

    // MARK: Running until the daemon dies

    /// Runs random operations until the connection breaks (the daemon was killed).
    func run(socketPath: String) {
        guard let client = try? VarlinkClient(socketPath: socketPath, timeoutSeconds: 20) else { return }
        while true {
            do {
                try step(client)
                answered += 1
            } catch {
                return
            }
        }
    }

    private func step(_ client: VarlinkClient) throws {
        let settled = models.filter(\.isSettled)
        if settled.count < 2 {
            return try register(client)
        }
        guard let model = settled.randomElement(using: &generator), let pin = model.pin, let keyId = model.keyId else { return }
        if case .pending(let token, let expiresAt) = model.pending {
            return try finishUnregister(client, model, token: token, expiresAt: expiresAt, commit: Bool.random(using: &generator))
        }
        switch Int.random(in: 0..<10, using: &generator) {
        case 0..<3:
            let newPin = Self.pins.filter { $0 != pin }.randomElement(using: &generator) ?? pin
            model.pins = [pin, newPin]
            model.minimumFailures = 0  // a right PIN that may have been checked clears the count
            let reply = try client.vault("ChangePin", ["user": model.user, "keyId": keyId, "currentPin": pin, "newPin": newPin])
            expect(reply, nil, model, "ChangePin")
            if reply.error == nil { model.pins = [newPin] }
        case 3..<6 where model.minimumFailures < Self.maxWrongInARow:
            let reply = try client.authenticate(user: model.user, pin: Self.wrongPin, keyId: keyId)
            expect(reply, "WrongPin", model, "wrong Authenticate")
            if let remaining = reply.int("remainingAttempts") {
                model.minimumFailures = Self.maxAttempts - remaining
            }
        case 3..<7:
            model.minimumFailures = 0
            let reply = try client.authenticate(user: model.user, pin: pin, keyId: keyId)
            expect(reply, nil, model, "Authenticate")
            if reply.error == nil, reply.string("publicKey") != model.publicKey {
                failures.note("\(model.user): Authenticate answered another public key")
            }
        case 7..<9:
            model.pending = .maybeBegun
            model.minimumFailures = 0
            let reply = try client.vault("BeginUnregister", ["user": model.user, "keyId": keyId, "pin": pin])
            expect(reply, nil, model, "BeginUnregister")
            if let token = reply.string("token"), let expiresAt = reply.string("expiresAt") {
                model.pending = .pending(token: token, expiresAt: expiresAt)
            }
        default:
            model.existence = .maybeDeleted
            model.minimumFailures = 0
            let reply = try client.vault("Wipe", ["user": model.user, "keyId": keyId, "pin": pin])
            expect(reply, nil, model, "Wipe")
            if reply.error == nil { model.existence = .deleted }
        }
    }

    private func register(_ client: VarlinkClient) throws {
        serial += 1
        let model = CredentialModel(user: "c\(id)-\(serial)", pin: Self.pins.randomElement(using: &generator) ?? Self.pins[0])
        models.append(model)
        let reply = try client.vault("Register", ["user": model.user, "pin": model.pins.first ?? ""])
        expect(reply, nil, model, "Register")
        if let credential = reply.object("credential") {
            model.keyId = credential["keyId"] as? String
            model.publicKey = credential["publicKey"] as? String
            model.existence = .exists
        }
    }

    private func finishUnregister(
        _ client: VarlinkClient, _ model: CredentialModel, token: String, expiresAt: String, commit: Bool
    ) throws {
        let keyId = model.keyId ?? ""
        if commit {
            model.existence = .maybeDeleted
        } else {
            model.pending = .maybeAborted(token: token, expiresAt: expiresAt)
        }
        let reply = try client.vault(commit ? "CommitUnregister" : "AbortUnregister", ["keyId": keyId, "token": token])
        expect(reply, nil, model, commit ? "CommitUnregister" : "AbortUnregister")
        guard reply.error == nil else { return }
        if commit {
            model.existence = .deleted
        } else {
            model.pending = .none
        }
    }

    /// Notes a reply other than `error` (nil: success) as a failure.
    private func expect(_ reply: VarlinkResponse, _ error: String?, _ model: CredentialModel, _ what: String) {
        if reply.errorName != error {
            failures.note("\(model.user): \(what) answered \(reply), expected \(error ?? "success")")
        }
    }

    // MARK: Checking after the restart

    /// Checks every model against what the restarted daemon lists (`listed`, the
    /// credentials of this client's users by user name), settles the outcomes the
    /// kill left open, and proves each remaining credential opens with exactly one
    /// of its possible PINs.
    func reconcile(listed: [String: [String: Any]], client: VarlinkClient) throws {
        for model in models {
            let found = listed[model.user]
            switch model.existence {
            case .exists:
                guard found != nil else {
                    failures.note("\(model.user): lost (an acknowledged credential is gone)")
                    model.existence = .deleted
                    continue
                }
            case .deleted:
                if found != nil { failures.note("\(model.user): came back after an acknowledged delete") }
                continue
            case .maybeRegistered, .maybeDeleted:
                model.existence = found == nil ? .deleted : .exists
            }
            guard let found else { continue }
            try check(model, against: found, client: client)
        }
        models.removeAll { $0.existence == .deleted }
    }

    private func check(_ model: CredentialModel, against found: [String: Any], client: VarlinkClient) throws {
        if model.keyId == nil {
            model.keyId = found["keyId"] as? String
            model.publicKey = found["publicKey"] as? String
        }
        guard found["keyId"] as? String == model.keyId, found["publicKey"] as? String == model.publicKey else {
            return failures.note("\(model.user): keyId or publicKey changed: \(found)")
        }
        let failed = (found["failedAttempts"] as? NSNumber)?.intValue ?? -1
        if failed < model.minimumFailures {
            failures.note("\(model.user): failedAttempts \(failed) went below the \(model.minimumFailures) answered")
        }
        let state = found["state"] as? String
        let expiry = found["unregistrationExpiresAt"] as? String
        switch model.pending {
        case .none:
            if state == "pendingUnregistration" { failures.note("\(model.user): pending with no BeginUnregister") }
        case .pending(_, let expiresAt):
            if state != "pendingUnregistration" || expiry != expiresAt {
                failures.note("\(model.user): acknowledged pending unregistration became \(state ?? "?") expiring \(expiry ?? "never"), not \(expiresAt)")
            }
            return  // a pending credential takes no PIN; its token is still ours
        case .maybeAborted(let token, let expiresAt):
            if state == "pendingUnregistration" {
                if expiry != expiresAt { failures.note("\(model.user): pending expiry moved to \(expiry ?? "never") from \(expiresAt)") }
                model.pending = .pending(token: token, expiresAt: expiresAt)
                return
            }
            model.pending = .none
        case .maybeBegun:
            if state == "pendingUnregistration" {
                // Begun with a token nobody received: an admin clears it without a PIN.
                let wiped = try client.vault("Wipe", ["user": model.user])
                if wiped.error != nil { failures.note("\(model.user): admin Wipe answered \(wiped)") }
                model.existence = .deleted
                return
            }
            model.pending = .none
        }
        try checkOpensWithExactlyOnePin(model, client: client)
    }

    private func checkOpensWithExactlyOnePin(_ model: CredentialModel, client: VarlinkClient) throws {
        var opened: [String] = []
        for candidate in model.pins.shuffled(using: &generator) {
            let reply = try client.authenticate(user: model.user, pin: candidate, keyId: model.keyId)
            switch reply.errorName {
            case nil:
                opened.append(candidate)
                if reply.string("publicKey") != model.publicKey {
                    failures.note("\(model.user): opened to another public key")
                }
            case "WrongPin":
                break
            default:
                failures.note("\(model.user): Authenticate after restart answered \(reply)")
            }
        }
        if opened.count == 1, let pin = opened.first {
            model.pins = [pin]
            model.minimumFailures = 0
        } else {
            failures.note("\(model.user): opened with \(opened.count) of its \(model.pins.count) possible PINs")
            model.existence = .deleted  // nothing more to learn from it
        }
    }
}
