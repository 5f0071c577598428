/// Time from a start to the first answered call, over several starts of each kind,
/// alternating: a direct start on the small store, a socket-activated start on the
/// small store, a direct start on the large store.
enum ColdStartBenchmark {
    static func run(
        small: ScaleBenchmark.Store, large: ScaleBenchmark.Store, activatorPath: String,
        parameters: BenchParameters, report: Report
    ) throws {
        try small.daemon.stop()
        try large.daemon.stop()
        var direct: [Double] = []
        var activated: [Double] = []
        var directLarge: [Double] = []
        for _ in 0..<parameters.coldStarts {
            direct.append(try small.daemon.start())
            try small.daemon.stop()
            activated.append(try small.daemon.startActivated(activatorPath: activatorPath))
            try small.daemon.stop()
            directLarge.append(try large.daemon.start())
            try large.daemon.stop()
        }

        var section = Report.Section("Cold start")
        section.add("Direct: from just before `posix_spawn(pinvaultd …)` to the first answered GetPolicy, the")
        section.add("client retrying `connect` every 0.2 ms until the socket exists. Activated:")
        section.add("`systemd-socket-activate -l SOCKET pinvaultd …` is started and listening first; the clock runs")
        section.add("from the first accepted `connect` (which makes it exec the daemon with `LISTEN_FDS`) to the answered")
        section.add("GetPolicy. Each start opens the store (WAL, `quick_check`, a read of every row) and loads the")
        section.add("pepper; each stop is SIGTERM and a clean exit. \(parameters.coldStarts) starts of each kind, alternating.")
        section.add()
        section.header("start", "min / median / max")
        section.row("direct, \(Format.count(small.credentials)) credentials", Format.summary(Summary(direct), Format.milliseconds))
        section.row("socket-activated, \(Format.count(small.credentials)) credentials", Format.summary(Summary(activated), Format.milliseconds))
        section.row("direct, \(Format.count(large.credentials)) credentials", Format.summary(Summary(directLarge), Format.milliseconds))
        report.add(section)
    }
}
