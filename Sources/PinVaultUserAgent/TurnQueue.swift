/// Work that takes turns: each body runs when the one before it has said it is done
/// (by calling the function it was given, once; later calls do nothing). The loop's
/// alone, as everything of the agent's state is.
final class TurnQueue {
    private var waiting: [(@escaping () -> Void) -> Void] = []
    private var taken = false

    /// Runs `body` now if no turn is under way, else after those before it.
    func take(_ body: @escaping (@escaping () -> Void) -> Void) {
        waiting.append(body)
        if !taken { next() }
    }

    private func next() {
        guard !waiting.isEmpty else {
            taken = false
            return
        }
        taken = true
        let body = waiting.removeFirst()
        var released = false
        body { [self] in
            guard !released else { return }
            released = true
            next()
        }
    }
}
