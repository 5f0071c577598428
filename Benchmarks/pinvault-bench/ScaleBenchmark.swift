import Glibc

/// Authenticate and List with 10 and with 100,000 credentials in the store, two daemons
/// side by side, alternating calls; and the store's size on disk per credential.
enum ScaleBenchmark {
    /// The account whose credentials are measured: one registered through the daemon at
    /// production KDF parameters, plus `ownFillerRows` filler rows, all under this uid.
    static let user = "bench-scale"
    static let ownFillerRows = 3

    /// A daemon over a store of `credentials` rows.
    struct Store {
        let daemon: DaemonInstance
        let credentials: Int
        let fill: FillerStore.Outcome
        /// The real credential.
        let keyId: String
    }

    /// Fills a store to `credentials` rows (the real one included), starts a daemon on
    /// it, and registers the real credential.
    static func prepare(credentials: Int, daemonPath: String, configPath: String) throws -> Store {
        let daemon = try DaemonInstance(daemonPath: daemonPath, configPath: configPath)
        let fill = try FillerStore.fill(
            stateDirectory: daemon.stateDirectory, count: credentials - ownFillerRows - 1,
            ownUser: user, ownRows: ownFillerRows)
        try daemon.start()
        let keyId = try daemon.register(user: user, label: "measured")
        return Store(daemon: daemon, credentials: credentials, fill: fill, keyId: keyId)
    }

    static func run(small: Store, large: Store, parameters: BenchParameters, report: Report) throws {
        let stores = [small, large]
        let connections = try stores.map { try $0.daemon.connect() }
        let listRequest = VaultCalls.list(user: user)
        var listed: [Int] = []
        for (store, connection) in zip(stores, connections) {
            try connection.roundTrip(VaultCalls.authenticate(user: user, keyId: store.keyId))
            listed.append(try connection.call(listRequest) { try VaultCalls.credentialCount(fromListReply: $0) })
        }

        var authenticate: [[Double]] = [[], []]
        for _ in 0..<parameters.scaleAuthPairs {
            for (index, store) in stores.enumerated() {
                let request = VaultCalls.authenticate(user: user, keyId: store.keyId)
                authenticate[index].append(try Monotonic.measure { try connections[index].roundTrip(request) }.seconds)
            }
        }
        var list: [[Double]] = [[], []]
        for _ in 0..<parameters.listRounds {
            for index in stores.indices {
                let seconds = try Monotonic.measure {
                    for _ in 0..<parameters.listCalls { try connections[index].roundTrip(listRequest) }
                }.seconds
                list[index].append(seconds / Double(parameters.listCalls))
            }
        }

        let auth = authenticate.map { Summary($0) }
        let lists = list.map { Summary($0) }
        let authRatio = (auth[1]?.median ?? 0) / (auth[0]?.median ?? 1)
        let listRatio = (lists[1]?.median ?? 0) / (lists[0]?.median ?? 1)
        report.goal("Scale: Authenticate latency, 100,000 ÷ 10 credentials", authRatio, atMost: 1.05)
        report.goal("Scale: List latency, 100,000 ÷ 10 credentials", listRatio, atMost: 1.05)
        let perCredential = Double(large.fill.bytesOnDisk - small.fill.bytesOnDisk) / Double(large.credentials - small.credentials)

        var section = Report.Section("Scale")
        section.add("Two daemons, over stores of \(Format.count(small.credentials)) and \(Format.count(large.credentials)) credentials. Each store was filled through")
        section.add("PinVaultStore before the daemon's first start: one seed sealed once at weak KDF parameters")
        section.add("(opslimit 1, 8 KiB), copied under distinct random public keys / key ids into accounts `filler-N`")
        section.add("(8 each) of uids from \(FillerStore.firstFillerUid) on (64 each), in transactions of 10,000 rows; plus \(ownFillerRows) such rows")
        section.add("for `\(user)` under the benchmark's uid. Then the measured credential was registered through")
        section.add("the daemon at production parameters (label `measured`). Per-user and per-uid limits apply to")
        section.add("registrations, so no account or uid holds more than a registration could give it.")
        section.add("Authenticate (the measured credential, by keyId) alternates between the two daemons, \(parameters.scaleAuthPairs) pairs;")
        section.add("List is `List(user: \"\(user)\")` from the benchmark's uid, which answers \(listed.map(String.init).joined(separator: " / ")) credentials,")
        section.add("\(parameters.listCalls) calls per round, \(parameters.listRounds) rounds alternating; its figure is the mean per call of each round.")
        section.add()
        section.header("figure", "\(Format.count(small.credentials)) credentials", "\(Format.count(large.credentials)) credentials", "ratio of medians")
        section.row("Authenticate latency", Format.summary(auth[0], Format.milliseconds), Format.summary(auth[1], Format.milliseconds),
                    "**\(Format.ratio(authRatio))** (goal ≤ 1.05)")
        section.row("List latency", Format.summary(lists[0], Format.microseconds), Format.summary(lists[1], Format.microseconds),
                    "**\(Format.ratio(listRatio))** (goal ≤ 1.05)")
        section.row("time to fill the store", Format.duration(small.fill.seconds), Format.duration(large.fill.seconds), "")
        section.row("store on disk after filling (checkpointed)", Format.size(small.fill.bytesOnDisk), Format.size(large.fill.bytesOnDisk), "")
        section.add()
        section.add("Size on disk per credential: \(Format.bytes(perCredential)) (difference of the two stores ÷ difference of their counts;")
        section.add("`vault.sqlite` plus any WAL, with `secure_delete=ON`, labels `app-N`, accounts `filler-N`).")
        report.add(section)
    }
}
