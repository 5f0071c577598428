import Foundation
import Glibc
import PinVaultTestKit

/// The crash sweep (RELIABILITY.md): each PIN-checking request — Varlink's, and the
/// security key's ClientPIN over the CTAPHID socket — with a right and with a wrong PIN, on a vault whose credential already holds 0, 2 or `maxAttempts` − 1 wrong
/// PINs, and whose database was left checkpointed (a clean stop) or with its
/// write-ahead log full of frames (a SIGKILL). A dry run numbers the request's write and
/// sync calls in the state directory and its PIN checks (`PowerCut.Event`); then, for
/// each of them in turn, the real daemon is SIGKILLed there (before the call; after it
/// for a check and for the last call), restarted on what it left, and the invariants
/// are checked; then again with the power cut there (every write not yet synced lost);
/// or the call fails once with ENOSPC or EIO, and the daemon must answer, lose nothing
/// and go on serving.
///
/// The invariants, after each restart (`Findings` names a broken one):
/// - a WrongPin the client received is counted; so is every wrong PIN the daemon
///   checked (its Argon2id returned) before it died, received or not;
/// - a success the client received left no wrong PIN of its own counted, and reported
///   every one counted before it (`failedAttemptsCleared`);
/// - no attempt is counted twice: the count is at most one above what it was;
/// - the vault opens, every credential is there (but what a done Wipe deleted), and
///   opens with its right PIN, which reports every wrong PIN still counted.
final class CrashSweep {
    enum Request: String, CaseIterable {
        case authenticate = "Authenticate", unlock = "Unlock", changePin = "ChangePin"
        case beginUnregister = "BeginUnregister", wipe = "Wipe"
        /// The security key's PIN (CTAP ClientPIN, `CTAPPlatform`), on the uid's `webauthn` credential.
        case pinUvAuthToken = "getPinUvAuthTokenUsingPinWithPermissions", pinToken = "getPinToken"
        case securityKeyChangePin = "changePIN"

        var isSecurityKey: Bool { [.pinUvAuthToken, .pinToken, .securityKeyChangePin].contains(self) }
        var changesPin: Bool { self == .changePin || self == .securityKeyChangePin }
    }

    /// A reply as the sweep judges it: its name (success, WrongPin, CredentialBlocked,
    /// InternalError, or whatever else came) and the counts a Varlink reply reports (CTAP's
    /// report none: getPINRetries and List show them).
    struct Answer: CustomStringConvertible {
        let name: String
        let failedAttemptsCleared: Int?
        let remainingAttempts: Int?
        let description: String

        init(_ reply: VarlinkResponse) {
            name = reply.errorName ?? "success"
            failedAttemptsCleared = reply.int("failedAttemptsCleared")
            remainingAttempts = reply.int("remainingAttempts")
            description = "\(reply)"
        }

        /// A CTAP status as the Varlink error that means the same.
        init(ctap status: UInt8) {
            name = switch status {
            case CTAPPlatform.ok: "success"
            case CTAPPlatform.pinInvalid: "WrongPin"
            case CTAPPlatform.pinBlocked: "CredentialBlocked"
            case CTAPPlatform.other: "InternalError"
            default: "CTAP status 0x\(String(status, radix: 16))"
            }
            failedAttemptsCleared = nil
            remainingAttempts = nil
            description = "CTAP status 0x\(String(status, radix: 16))"
        }

        var isSuccess: Bool { name == "success" }
    }

    /// How the database was left before the request.
    enum Base: String, CaseIterable {
        /// Stopped cleanly: the log checkpointed and gone.
        case checkpointed
        /// SIGKILLed after the set-up: the log holds its frames, recovered at start.
        case logged
    }

    struct Scenario: CustomStringConvertible {
        let request: Request
        let rightPin: Bool
        /// Wrong PINs counted before the request.
        let prior: Int
        let base: Base
        var description: String { "\(request.rawValue) \(rightPin ? "right" : "wrong") PIN, \(prior) counted before, \(base.rawValue)" }
        /// The account whose credential the request uses.
        var user: String { request.isSecurityKey ? CrashSweep.securityKeyUser : CrashSweep.user }
        /// Its PINs: the right one, and the one a PIN change sets.
        var pins: (right: String, new: String) {
            request.isSecurityKey ? (CrashSweep.securityKeyPin, CrashSweep.securityKeyNewPin) : (CrashSweep.pin, CrashSweep.newPin)
        }
    }

    static let maxAttempts = 5
    static let user = "alice", pin = "258046", newPin = "370591", wrongPin = "999999"
    static let bystander = "bob", bystanderPin = "481620"
    static let foreignUser = "carol", foreignPin = "592731"
    /// The uid's security key (CTAP setPIN makes it, under this account name).
    static let securityKeyUser = "security-key", securityKeyPin = "614937", securityKeyNewPin = "703582"

    static var scenarios: [Scenario] {
        Base.allCases.flatMap { base in
            [0, 2, maxAttempts - 1].flatMap { prior in
                Request.allCases.flatMap { request in
                    [true, false].map { Scenario(request: request, rightPin: $0, prior: prior, base: base) }
                }
            }
        }
    }

    /// What the runs found and did.
    struct Figures {
        /// SIGKILLs and power cuts, each at one point.
        var crashPoints = 0
        var powerCuts = 0
        var faults: [PowerCut.Action: Int] = [:]
        var uncountedWrongPins = 0
        var lostCredentials = 0
        /// Crash points by request.
        var pointsByRequest: [String: Int] = [:]
        /// Fault replies by name (success, WrongPin, InternalError...).
        var faultReplies: [String: Int] = [:]
        var findings: [String] = []
    }

    let daemon: TestDaemon
    let power: PowerCut
    /// Whether a uid other than root's holds a credential (root only: setpriv).
    let foreignUid: UInt32?
    private let snapshots: TemporaryDirectory
    private(set) var figures = Figures()

    init(foreignUid: UInt32?) throws {
        daemon = try TestDaemon(overrides: [
            "lockout": ["throttle_after": "\(Self.maxAttempts)", "max_attempts": "\(Self.maxAttempts)"],
        ])
        power = try PowerCut()
        snapshots = try TemporaryDirectory()
        self.foreignUid = foreignUid
        try makeSnapshots()
    }

    // MARK: The states every run starts from

    private func snapshot(_ base: Base, prior: Int) -> String { snapshots.path + "/\(base.rawValue)-\(prior)" }

    /// One vault per base and prior count: alice (the credential the requests use),
    /// bob beside her, carol of another uid; `prior` wrong PINs counted on alice.
    private func makeSnapshots() throws {
        for base in Base.allCases {
            for prior in [0, 2, Self.maxAttempts - 1] {
                try? FileManager.default.removeItem(atPath: daemon.stateDirectory)
                try daemon.start()
                let client = try daemon.connect()
                try client.register(user: Self.user, pin: Self.pin)
                try client.register(user: Self.bystander, pin: Self.bystanderPin)
                if let foreignUid {
                    let reply = try ForeignUidClient(socketPath: daemon.socketPath, uid: foreignUid)
                        .call("io.pinvault.Vault.Register", ["user": Self.foreignUser, "pin": Self.foreignPin])
                    guard reply.error == nil else { throw TestKitError("Register as uid \(foreignUid): \(reply)") }
                }
                for _ in 0..<prior {
                    let reply = try client.authenticate(user: Self.user, pin: Self.wrongPin)
                    guard reply.errorName == "WrongPin" else { throw TestKitError("set-up wrong PIN: \(reply)") }
                }
                // The uid's security key, its PIN set over CTAP, `prior` wrong PINs counted on it too.
                let platform = try CTAPPlatform(path: daemon.ctaphidSocketPath)
                try platform.setPin(Self.securityKeyPin)
                for _ in 0..<prior {
                    let status = try platform.tokenRequest(Self.wrongPin).status
                    guard status == CTAPPlatform.pinInvalid else { throw TestKitError("set-up wrong security key PIN: 0x\(String(status, radix: 16))") }
                }
                client.close()
                switch base {
                case .checkpointed: guard try daemon.stop() == 0 else { throw TestKitError("set-up stop:\n\(daemon.log)") }
                case .logged: try daemon.stop(signal: SIGKILL)
                }
                try copyDirectory(daemon.stateDirectory, to: snapshot(base, prior: prior))
            }
        }
    }

    private func copyDirectory(_ source: String, to destination: String) throws {
        try? FileManager.default.removeItem(atPath: destination)
        let result = try Subprocess.run("/bin/cp", ["-a", source, destination])
        guard result.status == 0 else { throw TestKitError("cp -a \(source) \(destination): \(result)") }
    }

    private func start(_ scenario: Scenario, environment: [String: String]) throws -> VarlinkClient {
        power.disarm()
        try copyDirectory(snapshot(scenario.base, prior: scenario.prior), to: daemon.stateDirectory)
        try daemon.start(environment: environment)
        return try daemon.connect()
    }

    // MARK: One request

    private func parameters(_ scenario: Scenario) -> [String: Any] {
        let pin = scenario.rightPin ? Self.pin : Self.wrongPin
        switch scenario.request {
        case .authenticate: return ["user": Self.user, "pin": pin, "challenge": Data("crash sweep".utf8).base64EncodedString()]
        case .unlock: return ["user": Self.user, "pin": pin, "ttlSeconds": 60]
        case .changePin: return ["user": Self.user, "currentPin": pin, "newPin": Self.newPin]
        case .beginUnregister, .wipe: return ["user": Self.user, "pin": pin]
        case .pinUvAuthToken, .pinToken, .securityKeyChangePin: return [:]  // CTAP's, not Varlink's
        }
    }

    /// The reply a run without faults gives.
    private func expectedReply(_ scenario: Scenario) -> String {
        if scenario.rightPin { return "success" }
        return scenario.prior + 1 >= Self.maxAttempts ? "CredentialBlocked" : "WrongPin"
    }

    /// Sends the request after arming the shim; the reply, or nil when the daemon died
    /// first. A ClientPIN request goes on a CTAPHID channel whose key agreement is made
    /// before the shim is armed (it writes nothing).
    private func send(_ scenario: Scenario, on client: VarlinkClient) throws -> Answer? {
        guard scenario.request.isSecurityKey else {
            try power.arm()
            try client.send(VarlinkClient.vault + "." + scenario.request.rawValue, parameters(scenario))
            return (try? client.receive()).map(Answer.init)
        }
        let platform = try CTAPPlatform(path: daemon.ctaphidSocketPath)
        let pin = scenario.rightPin ? Self.securityKeyPin : Self.wrongPin
        try power.arm()
        let status: UInt8? = switch scenario.request {
        case .pinToken: try? platform.tokenRequest(pin, legacy: true).status
        case .securityKeyChangePin: try? platform.changePin(from: pin, to: Self.securityKeyNewPin)
        default: try? platform.tokenRequest(pin, permissions: 0x03).status
        }
        return status.map { Answer(ctap: $0) }
    }

    /// The dry run: the request's events, with its reply checked.
    func dryRun(_ scenario: Scenario) throws -> [PowerCut.Event] {
        let client = try start(scenario, environment: power.environment(for: daemon, points: true))
        defer { client.close() }
        guard let reply = try send(scenario, on: client) else { throw TestKitError("\(scenario): the dry run got no reply") }
        let events = try power.events()
        try daemon.stop(signal: SIGKILL)
        var found: [String] = []
        if reply.name != expectedReply(scenario) {
            found.append("dry run answered \(reply), not \(expectedReply(scenario))")
        }
        check(reply: reply, scenario, into: &found)
        // Counted durably before checked: the first PIN check comes after a sync.
        let firstCheck = events.firstIndex { $0.kind == "check" }
        let firstSync = events.firstIndex { $0.kind == "sync" }
        if let firstCheck, (firstSync ?? Int.max) > firstCheck {
            found.append("the PIN was checked before any sync: \(events)")
        }
        if firstCheck == nil { found.append("no PIN check among the events: \(events)") }
        note(found, scenario, "dry run")
        return events
    }

    // MARK: Crash points

    /// The points of a request of `events`: SIGKILL before each call, after each PIN
    /// check, and after the last call.
    static func crashPoints(_ events: [PowerCut.Event]) -> [PowerCut.Point] {
        var points = events.map { PowerCut.Point(event: $0.number, action: .kill) }
        if let last = events.last, last.kind != "check" { points.append(PowerCut.Point(event: last.number, action: .killAfter)) }
        return points
    }

    /// SIGKILL at `point` — with `powerCut`, every write not synced by then lost as
    /// well (`PowerCut.cut`) — restart on what it left, check.
    func crash(_ scenario: Scenario, at point: PowerCut.Point, dryRun events: [PowerCut.Event], powerCut: Bool) throws {
        let client = try start(scenario, environment: power.environment(for: daemon, at: point))
        let reply = try send(scenario, on: client)
        client.close()
        if powerCut {
            try power.cut(daemon)
        } else {
            try daemon.stop(signal: SIGKILL)
        }
        let seen = try power.events()
        var found: [String] = []
        if seen != Array(events.prefix(point.event)) {
            found.append("not the dry run's events (the sweep is not deterministic): \(seen) against \(events.prefix(point.event))")
        }
        // The PIN was checked when a check event returned before the kill.
        let checked = seen.contains { $0.kind == "check" && ($0.number < point.event || point.action != .kill || events[point.event - 1].kind == "check") }
        if let reply { check(reply: reply, scenario, into: &found) }
        try daemon.start()
        let verifier = try daemon.connect()
        defer { verifier.close() }
        try checkAfterRestart(scenario, reply: reply, checked: checked, verifier: verifier, into: &found)
        try daemon.stop(signal: SIGKILL)
        figures.crashPoints += 1
        if powerCut { figures.powerCuts += 1 }
        figures.pointsByRequest[scenario.request.rawValue, default: 0] += 1
        note(found, scenario, "\(powerCut ? "power cut" : "SIGKILL") at \(point.action == .kill ? "" : "after ")event \(events[point.event - 1])")
    }

    // MARK: Faults

    /// The calls a fault goes to: ENOSPC at each write, EIO at each write and sync.
    static func faultPoints(_ events: [PowerCut.Event]) -> [PowerCut.Point] {
        events.flatMap { event -> [PowerCut.Point] in
            switch event.kind {
            case "write", "truncate": return [.init(event: event.number, action: .enospc), .init(event: event.number, action: .eio)]
            case "sync": return [.init(event: event.number, action: .eio)]
            default: return []
            }
        }
    }

    /// The call at `point` fails once: the client gets a clear answer, the daemon goes on
    /// serving (and its next requests succeed), and nothing is lost, then or after a restart.
    func fault(_ scenario: Scenario, at point: PowerCut.Point, dryRun events: [PowerCut.Event]) throws {
        let client = try start(scenario, environment: power.environment(for: daemon, at: point))
        defer { client.close() }
        let reply = try send(scenario, on: client)
        let seen = try power.events()
        var found: [String] = []
        let checked = seen.contains { $0.kind == "check" && $0.number > 0 }
        if let reply {
            let name = reply.name
            figures.faultReplies[name, default: 0] += 1
            if ![expectedReply(scenario), "InternalError"].contains(name) {
                found.append("answered \(reply): neither the request's answer nor InternalError")
            }
            check(reply: reply, scenario, into: &found)
            // Still serving, on the same connection and process.
            try checkAfterRestart(scenario, reply: reply, checked: checked, verifier: client, into: &found)
            try daemon.stop(signal: SIGKILL)
            try daemon.start()
            let verifier = try daemon.connect()
            defer { verifier.close() }
            try checkStillThere(scenario, reply: reply, verifier: verifier, into: &found)
        } else {
            found.append("no answer: the daemon died or hung on the fault\n\(daemon.log.suffix(1500))")
        }
        try daemon.stop(signal: SIGKILL)
        figures.faults[point.action, default: 0] += 1
        note(found, scenario, "\(point.action.rawValue.uppercased()) at event \(events[point.event - 1])")
    }

    // MARK: Invariants

    /// What a reply itself must say: a success reports every wrong PIN counted before it.
    private func check(reply: Answer, _ scenario: Scenario, into found: inout [String]) {
        let varlink = !scenario.request.isSecurityKey
        switch reply.name {
        case "success":
            if !scenario.rightPin { found.append("a wrong PIN succeeded: \(reply)") }
            if varlink && reply.failedAttemptsCleared != scenario.prior {
                found.append("success reported \(reply.failedAttemptsCleared.map(String.init) ?? "nothing") wrong PINs cleared, \(scenario.prior) were counted")
            }
        case "WrongPin":
            if varlink && reply.remainingAttempts != Self.maxAttempts - scenario.prior - 1 {
                found.append("WrongPin left \(reply.remainingAttempts ?? -1) attempts after \(scenario.prior + 1) wrong PINs")
            }
        default: break
        }
    }

    /// The count, the PIN and the bystanders, on a restarted (or still serving) daemon.
    /// `reply` is what the client received (nil: cut), `checked` whether the PIN was
    /// checked before the cut or the fault's answer.
    private func checkAfterRestart(
        _ scenario: Scenario, reply: Answer?, checked: Bool, verifier: VarlinkClient, into found: inout [String]
    ) throws {
        let answered = reply?.name
        let listed = try verifier.list(user: scenario.user)
        try checkBystanders(verifier, into: &found)
        guard let credential = listed.first else {
            if scenario.request == .wipe && scenario.rightPin && answered != "InternalError" { return }  // done (or cut after it)
            figures.lostCredentials += 1
            found.append("\(scenario.user) is gone (lost credential), answered \(answered ?? "nothing")")
            return
        }
        guard let failed = (credential["failedAttempts"] as? NSNumber)?.intValue else {
            return found.append("List gave no failedAttempts: \(credential)")
        }
        let c0 = scenario.prior
        if failed > c0 + 1 { found.append("failedAttempts \(failed) after \(c0) and one PIN: counted twice") }
        let pending = credential["state"] as? String == "pendingUnregistration"
        if scenario.request == .wipe && answered == "success" { found.append("alice still exists after a Wipe that succeeded") }
        switch answered {
        case "WrongPin", "CredentialBlocked":
            if failed != c0 + 1 { uncounted(&found, "answered \(answered ?? "") but failedAttempts is \(failed), not \(c0 + 1)") }
        case "success":
            if failed != 0 { found.append("a success left failedAttempts \(failed)") }
            if scenario.request == .beginUnregister && !pending { found.append("BeginUnregister succeeded but alice is not pending") }
        default:
            // Cut, or InternalError: counted once the PIN was checked; a right one may
            // have settled (cleared) too, and then its success is what the store holds.
            if !checked && failed != c0 && failed != c0 + 1 { found.append("failedAttempts \(failed) before any PIN check, \(c0) counted") }
            if checked && !scenario.rightPin && failed != c0 + 1 {
                uncounted(&found, "a wrong PIN was checked before the \(reply == nil ? "crash" : "fault") but failedAttempts is \(failed), not \(c0 + 1)")
            }
            if reply == nil && checked && scenario.rightPin && failed != c0 + 1 && failed != 0 {
                found.append("a right PIN was checked, its attempt neither counted nor settled: failedAttempts \(failed)")
            }
            // A right PIN answered InternalError: its own attempt uncounted (or left counted).
            if reply != nil && scenario.rightPin && failed != c0 && failed != c0 + 1 && failed != 0 {
                found.append("a right PIN answered InternalError and left failedAttempts \(failed), \(c0) counted before")
            }
            if scenario.request == .beginUnregister && pending && failed != 0 { found.append("pending, yet failedAttempts \(failed)") }
            if scenario.request == .beginUnregister && c0 > 0 && failed == 0 && !pending { found.append("cleared without being pending") }
            if answered == "InternalError" && scenario.rightPin && failed == 0 && c0 > 0 && !pending {
                found.append("a right PIN answered InternalError, yet the \(c0) wrong PINs before it were cleared, never reported")
            }
        }
        if pending { return }  // unusable until it expires, by design; its token went with the cut
        try checkOpens(scenario, failed: failed, answered: answered, verifier: verifier, into: &found)
    }

    private func uncounted(_ found: inout [String], _ text: String) {
        figures.uncountedWrongPins += 1
        found.append("UNCOUNTED: " + text)
    }

    /// alice opens with exactly one of her PINs, and that success reports every wrong
    /// PIN still counted (after an admin's Unblock, if she was blocked).
    private func checkOpens(
        _ scenario: Scenario, failed: Int, answered: String?, verifier: VarlinkClient, into found: inout [String]
    ) throws {
        if failed >= Self.maxAttempts {
            let unblocked = try verifier.vault("Unblock", ["ownerUid": Int(getuid()), "user": scenario.user, "keyId": try keyId(scenario.user, verifier)])
            if unblocked.error != nil { return found.append("Unblock answered \(unblocked)") }
        }
        let pins = scenario.pins
        var candidates = [pins.right]
        if scenario.request.changesPin && scenario.rightPin {
            candidates = answered == "success" ? [pins.new] : answered == "InternalError" ? [pins.right] : [pins.right, pins.new]
        }
        var opened: [String] = []
        var wrongNow = 0
        for candidate in candidates {
            let reply = try open(scenario, with: candidate, verifier: verifier)
            switch reply.name {
            case "success":
                opened.append(candidate)
                if let reported = reply.failedAttemptsCleared ?? (scenario.request.isSecurityKey ? nil : -1),
                   reported != failed + wrongNow && !(scenario.request.changesPin && failed == 0) {
                    found.append("the right PIN after the run reported \(reported) wrong PINs cleared; \(failed + wrongNow) were counted")
                }
                wrongNow = 0
            case "WrongPin": wrongNow += 1
            default: found.append("opening with a candidate PIN answered \(reply)")
            }
        }
        if opened.count != 1 { found.append("\(scenario.user) opens with \(opened.count) of \(candidates)") }
        if scenario.request.changesPin && scenario.rightPin, let pin = opened.first, answered == nil {
            // A cut PIN change: the new PIN opens only if its success (count cleared) is stored.
            if pin == pins.new && failed != 0 { found.append("the new PIN opens, but failedAttempts was \(failed)") }
            if pin == pins.right && failed == 0 && scenario.prior > 0 { found.append("the old PIN opens, but the count was cleared") }
        }
    }

    /// The credential's PIN tried: Authenticate, or for the security key a token asked over CTAP.
    private func open(_ scenario: Scenario, with pin: String, verifier: VarlinkClient) throws -> Answer {
        guard scenario.request.isSecurityKey else { return Answer(try verifier.authenticate(user: Self.user, pin: pin)) }
        return Answer(ctap: try CTAPPlatform(path: daemon.ctaphidSocketPath).tokenRequest(pin).status)
    }

    private func keyId(_ user: String, _ verifier: VarlinkClient) throws -> String {
        guard let keyId = try verifier.list(user: user).first?["keyId"] as? String else { throw TestKitError("\(user) has no keyId") }
        return keyId
    }

    /// bob and carol are there and open with their PINs, nothing counted.
    private func checkBystanders(_ verifier: VarlinkClient, into found: inout [String]) throws {
        let bob = try verifier.authenticate(user: Self.bystander, pin: Self.bystanderPin)
        if bob.error != nil || bob.int("failedAttemptsCleared") != 0 {
            figures.lostCredentials += bob.errorName == "NoSuchCredential" ? 1 : 0
            found.append("bob: \(bob)")
        }
        if let foreignUid {
            let carol = try verifier.vault("Authenticate", [
                "user": Self.foreignUser, "pin": Self.foreignPin, "ownerUid": Int(foreignUid),
                "challenge": Data("crash sweep".utf8).base64EncodedString(),
            ])
            if carol.error != nil || carol.int("failedAttemptsCleared") != 0 {
                figures.lostCredentials += carol.errorName == "NoSuchCredential" ? 1 : 0
                found.append("carol (uid \(foreignUid)): \(carol)")
            }
        }
    }

    /// After a fault and a restart: what the fault's answer left is still there.
    private func checkStillThere(_ scenario: Scenario, reply: Answer, verifier: VarlinkClient, into found: inout [String]) throws {
        try checkBystanders(verifier, into: &found)
        let listed = try verifier.list(user: scenario.user)
        let wiped = scenario.request == .wipe && scenario.rightPin && reply.isSuccess
        if listed.isEmpty != wiped {
            if !wiped { figures.lostCredentials += 1 }
            found.append(wiped ? "alice is back after a Wipe that succeeded" : "\(scenario.user) is gone after the restart (lost credential)")
        }
    }

    private func note(_ found: [String], _ scenario: Scenario, _ what: String) {
        for finding in found { figures.findings.append("\(scenario), \(what): \(finding)") }
    }
}
