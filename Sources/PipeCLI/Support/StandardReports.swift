import Foundation
import PipeCore
import PipeReport

/// The reports every run leaves in `artifacts/<run id>/`: `junit.xml` and `summary.md`, whose coverage is compared
/// with the branch's last earlier run in `store`.
struct StandardReports: RunReportWriter {
    var store: RunStore?

    func write(
        record: RunRecord, earlierAttempts: [String: [TestCaseResult]], into folder: URL, redactor: SecretRedactor
    ) throws -> [URL] {
        try RunReports.write(
            record: record, earlierRuns: earlierAttempts, to: folder, redactor: redactor,
            coverageBefore: store.map { CoverageBaseline.before(record, in: $0) } ?? [:])
    }
}
