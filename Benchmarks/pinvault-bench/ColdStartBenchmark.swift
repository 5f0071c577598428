/// Time from a start to the first answered call, over several starts of each kind,
/// alternating: direct and socket-activated starts on the small store and on the large
/// store. The goal (issue 16): a socket-activated start that does not grow with the
/// vault — at the large store ≤ 1.2 × the small one's, and under 30 ms.
enum ColdStartBenchmark {
    static func run(
        small: ScaleBenchmark.Store, large: ScaleBenchmark.Store, activatorPath: String,
        parameters: BenchParameters, report: Report
    ) throws {
        try small.daemon.stop()
        try large.daemon.stop()
        var direct: [Double] = [], directLarge: [Double] = []
        var activated: [Double] = [], activatedLarge: [Double] = []
        for _ in 0..<parameters.coldStarts {
            direct.append(try small.daemon.start())
            try small.daemon.stop()
            activated.append(try small.daemon.startActivated(activatorPath: activatorPath))
            try small.daemon.stop()
            directLarge.append(try large.daemon.start())
            try large.daemon.stop()
            activatedLarge.append(try large.daemon.startActivated(activatorPath: activatorPath))
            try large.daemon.stop()
        }
        let smallActivated = Summary(activated), largeActivated = Summary(activatedLarge)
        let ratio = (largeActivated?.median ?? 0) / (smallActivated?.median ?? 1)
        let largeCount = Format.count(large.credentials), smallCount = Format.count(small.credentials)
        report.goal("Start: socket-activated at \(largeCount) ÷ at \(smallCount) credentials", ratio, atMost: 1.2)
        report.goal("Start: socket-activated at \(largeCount) credentials, median in ms", (largeActivated?.median ?? 1) * 1e3, atMost: 30)

        var section = Report.Section("Cold start")
        section.add("Direct: from just before `posix_spawn(pinvaultd …)` to the first answered GetPolicy, the")
        section.add("client retrying `connect` every 0.2 ms until the socket exists. Activated:")
        section.add("`systemd-socket-activate -l SOCKET pinvaultd …` is started and listening first; the clock runs")
        section.add("from the first accepted `connect` (which makes it exec the daemon with `LISTEN_FDS`) to the answered")
        section.add("GetPolicy. Each start opens the store (WAL; `quick_check` only after an unclean stop) and loads the")
        section.add("pepper; no row is read before READY (the sweep that decodes every row runs after it, in the")
        section.add("background). Each stop is SIGTERM and a clean exit. \(parameters.coldStarts) starts of each kind, alternating.")
        section.add()
        section.header("start", "min / median / max")
        section.row("direct, \(smallCount) credentials", Format.summary(Summary(direct), Format.milliseconds))
        section.row("direct, \(largeCount) credentials", Format.summary(Summary(directLarge), Format.milliseconds))
        section.row("socket-activated, \(smallCount) credentials", Format.summary(smallActivated, Format.milliseconds))
        section.row("socket-activated, \(largeCount) credentials", Format.summary(largeActivated, Format.milliseconds))
        section.row("**ratio of socket-activated medians**", "**\(Format.ratio(ratio))** (goal ≤ 1.2; and ≤ 30 ms at \(largeCount))")
        report.add(section)
    }
}
