import Foundation
import PipeCore
import PipeReport
import XCTest

/// Attachments and coverage in the reports: JUnit's `[[ATTACHMENT|path]]` lines, the summary's coverage table with
/// the change against the branch's last run, and attachments beside their failure.
final class ReportEvidenceTests: XCTestCase {
    private let sample = SampleRecords.everyOutcome()

    func testJUnitNamesEachAttachmentInItsTestsSystemOut() {
        let junit = JUnitReport.render(sample.record, earlierRuns: sample.earlierRuns)
        let expected =
            "<system-out>[[ATTACHMENT|artifacts/r/ui/R.xcresult.evidence/attachments/A1B2.png]]\n"
            + "[[ATTACHMENT|artifacts/r/ui/R.xcresult.evidence/attachments/C3D4.png]]\n</system-out>"
        XCTAssertTrue(junit.contains(expected), junit)
        let testCase = junit.components(separatedBy: "name=\"testRender()\"")[1]
        XCTAssertTrue(
            testCase.components(separatedBy: "</testcase>")[0].contains("[[ATTACHMENT|"), "inside its own testcase")
        XCTAssertEqual(junit.components(separatedBy: "[[ATTACHMENT|").count - 1, 2, "no other test has them")
    }

    func testTheSummaryShowsCoveragePerTargetWithTheChange() {
        let before = ["logic": [CoverageFacts.Target(name: "Reader.app", coveredLines: 140, executableLines: 200)]]
        let text = MarkdownSummary.render(sample.record, earlierRuns: sample.earlierRuns, coverageBefore: before)
        XCTAssertTrue(text.contains("| logic | `Reader.app` | 145 / 200 | 72.5% | +2.5 pp |"), text)
        XCTAssertTrue(text.contains("| logic | `Markup\\|<b>.framework` | 1 / 3 | 33.3% | — |"), text)
        let without = MarkdownSummary.render(sample.record, earlierRuns: sample.earlierRuns)
        XCTAssertTrue(without.contains("| logic | `Reader.app` | 145 / 200 | 72.5% | — |"), without)
    }

    func testChangesArePercentagePoints() {
        XCTAssertEqual(MarkdownSummary.change(2.5), "+2.5 pp")
        XCTAssertEqual(MarkdownSummary.change(-0.04), "±0 pp")
        XCTAssertEqual(MarkdownSummary.change(-12.345), "−12.3 pp")
    }

    func testAFailuresAttachmentsAreListedBesideItAndCountedInTheArtifacts() {
        let text = MarkdownSummary.render(sample.record, earlierRuns: sample.earlierRuns)
        XCTAssertTrue(
            text.contains("  - attached: `artifacts/r/ui/R.xcresult.evidence/attachments/A1B2.png` (image/png, 73 B)"),
            text)
        XCTAssertTrue(text.contains("- **ui**: 2 attachments\n"), text)
    }
}
