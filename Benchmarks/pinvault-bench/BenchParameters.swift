/// How much of each benchmark to run: the full run (`make bench`) or a quick check of
/// the harness (`make bench BENCH_QUICK=1`).
struct BenchParameters {
    let quick: Bool
    /// Authenticate / raw Argon2id pairs, one after the other.
    let kdfPairs: Int
    /// Parallel rounds (daemon, then raw Argon2id, each round).
    let parallelRounds: Int
    /// Authenticate calls per concurrent client per parallel round.
    let callsPerClient: Int
    /// Round-trip rounds (PinVault, then ssh-agent, each round).
    let roundTripRounds: Int
    /// Sequential round trips per round.
    let roundTripCalls: Int
    /// Calls written back to back per pipelined round.
    let pipelinedCalls: Int
    /// Authenticate pairs (small store, then large store).
    let scaleAuthPairs: Int
    /// List rounds (small store, then large store) and calls per round.
    let listRounds: Int
    let listCalls: Int
    /// Credentials in the small and the large store.
    let smallStore = 10
    let largeStore = 100_000
    /// Starts of each kind.
    let coldStarts: Int

    init(quick: Bool) {
        self.quick = quick
        kdfPairs = quick ? 3 : 40
        parallelRounds = quick ? 1 : 7
        callsPerClient = quick ? 2 : 8
        roundTripRounds = quick ? 3 : 15
        roundTripCalls = quick ? 2_000 : 20_000
        pipelinedCalls = quick ? 1_000 : 10_000
        scaleAuthPairs = quick ? 2 : 20
        listRounds = quick ? 3 : 15
        listCalls = quick ? 100 : 1_000
        coldStarts = quick ? 3 : 20
    }
}
