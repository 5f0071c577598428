/// Min / median / max of repeated measurements of one figure.
struct Summary {
    let min: Double
    let median: Double
    let max: Double
    let count: Int

    /// Nil when there are no samples.
    init?(_ samples: [Double]) {
        guard !samples.isEmpty else { return nil }
        let sorted = samples.sorted()
        min = sorted[0]
        max = sorted[sorted.count - 1]
        let middle = sorted.count / 2
        median = sorted.count % 2 == 1 ? sorted[middle] : (sorted[middle - 1] + sorted[middle]) / 2
        count = sorted.count
    }

    /// "min / median / max" with `format` applied to each.
    func formatted(_ format: (Double) -> String) -> String {
        "\(format(min)) / \(format(median)) / \(format(max))"
    }
}
