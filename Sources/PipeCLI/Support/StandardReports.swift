import Foundation
import PipeCore
import PipeReport

/// The reports every run leaves in `artifacts/<run id>/`: `junit.xml` and `summary.md`.
struct StandardReports: RunReportWriter {
    func write(
        record: RunRecord, earlierAttempts: [String: [TestCaseResult]], into folder: URL, redactor: SecretRedactor
    ) throws -> [URL] {
        try RunReports.write(record: record, earlierRuns: earlierAttempts, to: folder, redactor: redactor)
    }
}
