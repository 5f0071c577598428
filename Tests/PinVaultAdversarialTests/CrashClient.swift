import Foundation
import PinVaultTestKit

/// One client of the crash-consistency tests: it runs Register, ChangePin, wrong and
/// right Authenticate, BeginUnregister/CommitUnregister/AbortUnregister and Wipe on
/// its own credentials until the daemon dies under it, keeping a `CredentialModel`
/// of each. After the restart, `reconcile` checks the daemon against the models and
/// settles what the cut-off call did.
///
/// The model is exact: a failure counter must equal what the replies said, give or
/// take only what the one call in flight may have done (a wrong PIN: +1; a right
/// PIN: +1 or cleared). Over-counting fails as under-counting does.
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
    /// Calls sent whole whose reply the crash cut off, by method, over the whole test.
    private(set) var cutInFlight: [String: Int] = [:]
    /// Calls the crash stopped before they left whole (never read by the daemon).
    private(set) var cutUnsent = 0

    /// How a call ended without a reply.
    private enum Cut: Error {
        /// The frame did not leave whole: the daemon cannot have acted on it.
        case unsent
        /// Sent whole, no reply: it may or may not have been done.
        case inFlight
    }

    init(id: Int, failures: FailureLog) {
        self.id = id
        self.failures = failures
    }

    // MARK: Running until the daemon dies

    /// Runs random operations on `client` (connected before the cut could come) until
    /// the connection breaks (the daemon was killed).
    func run(_ client: VarlinkClient) {
        while true {
            do {
                try step(client)
                answered += 1
            } catch {
                return
            }
        }
    }

    /// Sends one call and reads its reply. When the crash cuts it, puts `model` back as
    /// it was before (`before`) if the call never left, and counts a call in flight.
    private func call(
        _ client: VarlinkClient, _ method: String, _ parameters: [String: Any],
        _ model: CredentialModel, before: CredentialModel.Knowledge
    ) throws(Cut) -> VarlinkResponse {
        do {
            try client.send(VarlinkClient.vault + "." + method, parameters)
        } catch {
            model.known = before
            cutUnsent += 1
            throw .unsent
        }
        do {
            return try client.receive()
        } catch {
            cutInFlight[method, default: 0] += 1
            throw .inFlight
        }
    }

    private func step(_ client: VarlinkClient) throws {
        let settled = models.filter(\.isSettled)
        if settled.count < 2 {
            return try register(client)
        }
        guard let model = settled.randomElement(using: &generator), let pin = model.pin, let keyId = model.keyId,
              let count = model.failureCount
        else { return }
        if case .pending(let token, let expiresAt) = model.pending {
            return try finishUnregister(client, model, token: token, expiresAt: expiresAt, commit: Bool.random(using: &generator))
        }
        let before = model.known
        switch Int.random(in: 0..<10, using: &generator) {
        case 0..<3:
            let newPin = Self.pins.filter { $0 != pin }.randomElement(using: &generator) ?? pin
            model.pins = [pin, newPin]
            model.known.changingTo = newPin
            model.sendingPin(right: true, successShows: true)
            let reply = try call(client, "ChangePin", ["user": model.user, "keyId": keyId, "currentPin": pin, "newPin": newPin], model, before: before)
            expect(reply, nil, model, "ChangePin")
            if reply.error == nil {
                model.pins = [newPin]
                model.settle(failures: 0)
            }
        case 3..<6 where count < Self.maxWrongInARow:
            model.sendingPin(right: false)
            let reply = try call(client, "Authenticate", authenticate(model, pin: Self.wrongPin, keyId: keyId), model, before: before)
            expect(reply, "WrongPin", model, "wrong Authenticate")
            settleWrongPin(reply, model, after: count, what: "wrong Authenticate")
        case 3..<7:
            model.sendingPin(right: true)
            let reply = try call(client, "Authenticate", authenticate(model, pin: pin, keyId: keyId), model, before: before)
            expect(reply, nil, model, "Authenticate")
            if reply.error == nil {
                model.settle(failures: 0)
                if reply.string("publicKey") != model.publicKey {
                    failures.note("\(model.user): Authenticate answered another public key")
                }
            }
        case 7..<9:
            model.pending = .maybeBegun
            model.sendingPin(right: true, successShows: true)
            let reply = try call(client, "BeginUnregister", ["user": model.user, "keyId": keyId, "pin": pin], model, before: before)
            expect(reply, nil, model, "BeginUnregister")
            if let token = reply.string("token"), let expiresAt = reply.string("expiresAt") {
                model.pending = .pending(token: token, expiresAt: expiresAt)
                model.settle(failures: 0)
            }
        default:
            model.existence = .maybeDeleted
            model.sendingPin(right: true, successShows: true)  // done, it is gone
            let reply = try call(client, "Wipe", ["user": model.user, "keyId": keyId, "pin": pin], model, before: before)
            expect(reply, nil, model, "Wipe")
            if reply.error == nil { model.existence = .deleted }
        }
    }

    private func authenticate(_ model: CredentialModel, pin: String, keyId: String?) -> [String: Any] {
        var parameters: [String: Any] = ["user": model.user, "pin": pin, "challenge": Data("challenge".utf8).base64EncodedString()]
        if let keyId { parameters["keyId"] = keyId }
        return parameters
    }

    /// A WrongPin reply to a wrong PIN sent with the counter at `count`: it must carry
    /// `remainingAttempts`, and say that exactly this one attempt was counted.
    private func settleWrongPin(_ reply: VarlinkResponse, _ model: CredentialModel, after count: Int, what: String) {
        guard reply.errorName == "WrongPin" else { return }
        guard let remaining = reply.int("remainingAttempts") else {
            failures.note("\(model.user): \(what) answered WrongPin without remainingAttempts: \(reply)")
            return
        }
        let counted = Self.maxAttempts - remaining
        if counted != count + 1 {
            failures.note("\(model.user): \(what) left \(remaining) attempts, so \(counted) failures; \(count + 1) were sent")
        }
        model.settle(failures: counted)
    }

    private func register(_ client: VarlinkClient) throws {
        serial += 1
        let model = CredentialModel(user: "c\(id)-\(serial)", pin: Self.pins.randomElement(using: &generator) ?? Self.pins[0])
        models.append(model)
        var never = model.known
        never.existence = .deleted
        let reply = try call(client, "Register", ["user": model.user, "pin": model.pins.first ?? ""], model, before: never)
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
        let before = model.known
        if commit {
            model.existence = .maybeDeleted
        } else {
            model.pending = .maybeAborted(token: token, expiresAt: expiresAt)
        }
        let method = commit ? "CommitUnregister" : "AbortUnregister"
        let reply = try call(client, method, ["keyId": keyId, "token": token], model, before: before)
        expect(reply, nil, model, method)
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
    /// crash left open, and proves each remaining credential opens with exactly one
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
                if found != nil { failures.note("\(model.user): exists, though acknowledged deleted or never sent") }
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
        guard let failed = (found["failedAttempts"] as? NSNumber)?.intValue else {
            failures.note("\(model.user): List gave no failedAttempts: \(found)")
            model.existence = .deleted  // nothing more to learn from it
            return
        }
        // What the counter may hold, as the call in flight was done or not.
        let ifNotDone = model.failures
        let ifDone = model.known.failuresIfDone ?? ifNotDone
        let changingTo = model.known.changingTo
        func checkFailures(done: Bool) {
            let allowed = done ? ifDone : ifNotDone
            if !allowed.contains(failed) {
                failures.note("\(model.user): failedAttempts \(failed), but the calls answered and in flight allow only "
                    + "\(allowed.sorted())\(done ? " (the call in flight was done)" : "")")
            }
        }
        model.settle(failures: failed)
        let state = found["state"] as? String
        let expiry = found["unregistrationExpiresAt"] as? String
        switch model.pending {
        case .none:
            if state == "pendingUnregistration" { failures.note("\(model.user): pending with no BeginUnregister") }
            if changingTo == nil { checkFailures(done: false) }  // a ChangePin in flight: once a PIN opens
        case .pending(_, let expiresAt):
            checkFailures(done: false)
            if state != "pendingUnregistration" || expiry != expiresAt {
                failures.note("\(model.user): acknowledged pending unregistration became \(state ?? "?") expiring \(expiry ?? "never"), not \(expiresAt)")
            }
            return  // a pending credential takes no PIN; its token is still ours
        case .maybeAborted(let token, let expiresAt):
            checkFailures(done: false)
            if state == "pendingUnregistration" {
                if expiry != expiresAt { failures.note("\(model.user): pending expiry moved to \(expiry ?? "never") from \(expiresAt)") }
                model.pending = .pending(token: token, expiresAt: expiresAt)
                return
            }
            model.pending = .none
        case .maybeBegun:
            checkFailures(done: state == "pendingUnregistration")
            if state == "pendingUnregistration" {
                // Begun with a token nobody received: an admin clears it without a PIN.
                let wiped = try client.vault("Wipe", ["user": model.user])
                if wiped.error != nil { failures.note("\(model.user): admin Wipe answered \(wiped)") }
                model.existence = .deleted
                return
            }
            model.pending = .none
        }
        let opened = try checkOpensWithExactlyOnePin(model, client: client)
        if let changingTo, let opened { checkFailures(done: opened == changingTo) }
    }

    /// Tries every PIN the model allows, in random order, following the counter through
    /// each reply: exactly one must open it. Returns that one.
    private func checkOpensWithExactlyOnePin(_ model: CredentialModel, client: VarlinkClient) throws -> String? {
        var opened: [String] = []
        for candidate in model.pins.shuffled(using: &generator) {
            let count = model.failureCount ?? 0
            let reply = try client.authenticate(user: model.user, pin: candidate, keyId: model.keyId)
            switch reply.errorName {
            case nil:
                opened.append(candidate)
                model.settle(failures: 0)
                if reply.string("publicKey") != model.publicKey {
                    failures.note("\(model.user): opened to another public key")
                }
            case "WrongPin":
                settleWrongPin(reply, model, after: count, what: "Authenticate after restart")
            default:
                failures.note("\(model.user): Authenticate after restart answered \(reply)")
            }
        }
        guard opened.count == 1, let pin = opened.first else {
            failures.note("\(model.user): opened with \(opened.count) of its \(model.pins.count) possible PINs")
            model.existence = .deleted  // nothing more to learn from it
            return nil
        }
        model.pins = [pin]
        return pin
    }
}
