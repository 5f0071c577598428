import Foundation

/// BENCHMARKS.md being assembled: the goals table first, then one section per benchmark.
final class Report {
    /// One ratio with its goal.
    struct Goal {
        let name: String
        let value: Double
        let goal: String
        let met: Bool
    }

    /// A titled run of Markdown lines.
    struct Section {
        let title: String
        var lines: [String] = []

        init(_ title: String) {
            self.title = title
        }

        mutating func add(_ line: String = "") {
            lines.append(line)
        }

        /// A table row of cells.
        mutating func row(_ cells: String...) {
            lines.append("| " + cells.joined(separator: " | ") + " |")
        }

        /// A table header and its rule.
        mutating func header(_ cells: String...) {
            lines.append("| " + cells.joined(separator: " | ") + " |")
            lines.append("|" + cells.map { _ in "---" }.joined(separator: "|") + "|")
        }
    }

    private(set) var goals: [Goal] = []
    private(set) var sections: [Section] = []

    func add(_ section: Section) {
        sections.append(section)
    }

    /// Records a ratio that must be at most `limit`.
    func goal(_ name: String, _ value: Double, atMost limit: Double) {
        goals.append(Goal(name: name, value: value, goal: "≤ " + Format.ratio(limit), met: value <= limit))
    }

    /// Records a ratio that must be at least `limit`.
    func goal(_ name: String, _ value: Double, atLeast limit: Double) {
        goals.append(Goal(name: name, value: value, goal: "≥ " + Format.ratio(limit), met: value >= limit))
    }

    /// The whole document.
    func markdown(preamble: [String], machine: Section, parameters: Section) -> String {
        var lines = preamble
        for section in [machine, parameters] {
            lines += ["", "## " + section.title, ""] + section.lines
        }
        lines += ["", "## Goals", "", "| ratio | measured (median-based) | goal | met |", "|---|---|---|---|"]
        for goal in goals {
            lines.append("| \(goal.name) | \(Format.ratio(goal.value)) | \(goal.goal) | \(goal.met ? "yes" : "**no**") |")
        }
        if goals.contains(where: { !$0.met }) {
            lines += ["", "Why a goal is missed, with the profile that shows it: docs/PERFORMANCE.md."]
        }
        for section in sections {
            lines += ["", "## " + section.title, ""] + section.lines
        }
        return lines.joined(separator: "\n") + "\n"
    }
}

/// How figures are written.
enum Format {
    static func ratio(_ value: Double) -> String { String(format: "%.3f", value) }
    static func milliseconds(_ seconds: Double) -> String { String(format: "%.1f ms", seconds * 1e3) }
    static func microseconds(_ seconds: Double) -> String { String(format: "%.1f µs", seconds * 1e6) }
    static func rate(_ perSecond: Double) -> String { String(format: "%.0f/s", perSecond) }
    static func rateFine(_ perSecond: Double) -> String { String(format: "%.2f/s", perSecond) }
    static func mebibytes(_ bytes: Int) -> String { String(format: "%.1f MiB", Double(bytes) / 1_048_576) }
    /// KiB under one MiB, else MiB.
    static func size(_ bytes: Int) -> String {
        bytes < 1_048_576 ? String(format: "%.1f KiB", Double(bytes) / 1024) : mebibytes(bytes)
    }
    static func bytes(_ value: Double) -> String { String(format: "%.0f B", value) }
    static func seconds(_ value: Double) -> String { String(format: "%.2f s", value) }
    /// Seconds under one as milliseconds, else seconds.
    static func duration(_ value: Double) -> String { value < 1 ? milliseconds(value) : seconds(value) }

    /// An integer with thousands separators: "100,000".
    static func count(_ value: Int) -> String {
        let digits = String(value.magnitude)
        var grouped = ""
        for (index, digit) in digits.enumerated() {
            if index > 0 && (digits.count - index) % 3 == 0 { grouped += "," }
            grouped.append(digit)
        }
        return (value < 0 ? "-" : "") + grouped
    }

    /// "min / median / max" of `summary`, or "—" when nothing was measured.
    static func summary(_ summary: Summary?, _ format: (Double) -> String) -> String {
        summary?.formatted(format) ?? "—"
    }
}
