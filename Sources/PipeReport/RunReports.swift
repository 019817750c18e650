import Foundation
import PipeBasics
import PipeCore

/// Writes a run's reports next to its record: `junit.xml` and `summary.md` in `artifacts/<run id>/`.
///
/// Call it when a run ends (and again whenever the record changes, e.g. after a sign-off): each file is written to a
/// temporary name and renamed, so a reader never sees half a report.
public enum RunReports {
    /// File names inside the run's artifacts folder.
    public enum FileName {
        public static let junit = "junit.xml"
        public static let markdown = "summary.md"
    }

    /// Writes `junit.xml` and `summary.md` into `folder` (created if needed) and returns their URLs.
    ///
    /// - Parameters:
    ///   - record: the run record (what `summary.json` holds).
    ///   - earlierRuns: per layer, results of runs before the final ones (earlier attempts under `retry.tests`,
    ///     or repetitions), so that tests that failed and then passed are reported flaky; empty when the record is
    ///     all there is.
    ///   - folder: `artifacts/<run id>/`.
    ///   - redactor: secrets to keep out of the files.
    ///   - coverageBefore: per layer, the coverage of the branch's last earlier run, for the summary's change.
    @discardableResult
    public static func write(
        record: RunRecord, earlierRuns: [String: [TestCaseResult]] = [:], to folder: URL,
        redactor: SecretRedactor = .none, coverageBefore: [String: [CoverageFacts.Target]] = [:]
    ) throws -> [URL] {
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        let junit = folder.appendingPathComponent(FileName.junit)
        let markdown = folder.appendingPathComponent(FileName.markdown)
        try writeAtomically(JUnitReport.render(record, earlierRuns: earlierRuns, redactor: redactor), to: junit)
        try writeAtomically(
            MarkdownSummary.render(
                record, earlierRuns: earlierRuns, redactor: redactor, coverageBefore: coverageBefore),
            to: markdown)
        return [junit, markdown]
    }

    /// Writes `text` to `url` through a temporary file in the same folder and a rename.
    public static func writeAtomically(_ text: String, to url: URL) throws {
        let temporary = url.deletingLastPathComponent().appendingPathComponent(".\(url.lastPathComponent).tmp")
        do {
            try Data(text.utf8).write(to: temporary)
        } catch {
            throw PipeBasicsError.io("could not write \(temporary.path): \(error.localizedDescription)")
        }
        guard rename(temporary.path, url.path) == 0 else {
            let reason = String(cString: strerror(errno))
            try? FileManager.default.removeItem(at: temporary)
            throw PipeBasicsError.io("could not write \(url.path): \(reason)")
        }
    }
}
