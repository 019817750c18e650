import Foundation
import PipeBasics
import PipeCore

/// How `pipe runs …` writes times, durations, sizes and tables for people (the `--json` forms carry raw values).
enum RunsFormatting {
    /// `2026-11-29 14:03:12` in UTC, the time zone of run ids.
    static func time(_ date: Date) -> String {
        let iso = UTCTimestamp.iso8601(date)
        return String(iso.prefix(19)).replacingOccurrences(of: "T", with: " ")
    }

    /// An ISO 8601 text from a record (`2026-11-29T14:03:12.345Z`) shown like `time(_:)`; kept as it is when it
    /// does not parse.
    static func time(_ text: String?) -> String {
        guard let text else { return "-" }
        guard let date = RunsTimeExpression.absolute(text) else { return text }
        return time(date)
    }

    /// `0.42 s`, `12.3 s`, `4m 05s`, `2h 03m`.
    static func duration(_ seconds: Double?) -> String {
        guard let seconds, seconds.isFinite, seconds >= 0 else { return "-" }
        if seconds < 10 { return String(format: "%.2f s", seconds) }
        if seconds < 60 { return String(format: "%.1f s", seconds) }
        let whole = Int(seconds.rounded())
        if whole < 3_600 { return String(format: "%dm %02ds", whole / 60, whole % 60) }
        return String(format: "%dh %02dm", whole / 3_600, (whole % 3_600) / 60)
    }

    /// `812 B`, `12.3 KB`, `4.1 MB` (powers of 1000, like the run view).
    static func bytes(_ value: Int64) -> String {
        LiveRenderer.bytes(value)
    }

    /// The first 10 hex digits of a commit, as people paste them.
    static func shortCommit(_ commit: String?) -> String {
        guard let commit, !commit.isEmpty else { return "-" }
        return String(commit.prefix(10))
    }

    /// Columns padded to their widest cell; the last column is not padded, so lines carry no trailing blanks.
    static func table(header: [String], rows: [[String]]) -> String {
        let all = [header] + rows
        let widths = header.indices.map { column in all.map { $0[column].count }.max() ?? 0 }
        return all.map { row in
            row.enumerated().map { column, cell in
                column == row.count - 1 ? cell : cell.padding(toLength: widths[column], withPad: " ", startingAt: 0)
            }.joined(separator: "  ").trimmingCharacters(in: .whitespaces)
        }.joined(separator: "\n") + "\n"
    }

    /// The exit code with its meaning: `0 (merge gate passed)`.
    static func exit(_ code: Int32?) -> String {
        guard let code else { return "-" }
        guard let known = PipeExitCode(rawValue: code) else { return "\(code)" }
        return "\(code) (\(LiveRenderer.verdict(known)))"
    }
}
