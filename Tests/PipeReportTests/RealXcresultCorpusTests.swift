import Foundation
import PipeApple
import PipeCore
import PipeReport
import XCTest

/// Real `xcresulttool` JSON of both formats (`Fixtures/real/xcresult/`, sources in `real/README.md`) through the
/// same code as `pipe report --tests-json` and `--legacy-json`, against the corpus invariants.
final class RealXcresultCorpusTests: XCTestCase {
    enum Kind {
        /// `xcresulttool get test-results tests` (Xcode 16+).
        case tests
        /// Legacy `xcresulttool get --legacy --format json`, the files in the order given.
        case legacy
    }

    /// Files, their kind, then the outcome and the passed, failed and skipped tests expected from reading them.
    static let cases: [(files: [String], kind: Kind, expected: String)] = [
        (["fastlane-xcode16-mixed-tests.json"], .tests, "tests-failed 28 12 7"),
        (["fastlane-xcode26-mixed-tests.json"], .tests, "tests-failed 28 13 7"),
        // The root record names no test: its metrics count 1, which the evidence quotes.
        (["xcresultkit-invocation-record.json"], .legacy, "passed 0 0 0"),
        (["xcresultkit-test-plan-run-summaries.json"], .legacy, "passed 4 0 0"),
        // Two captures: the root counts 1 test, the summaries list 4, and the evidence says so.
        (["xcresultkit-invocation-record.json", "xcresultkit-test-plan-run-summaries.json"], .legacy, "passed 4 0 0"),
    ]

    static func report(_ files: [String], _ kind: Kind) throws -> ReportResult? {
        let assembler = ReportAssembler(options: .init(), events: EventRecorder())
        for file in files {
            let data = try Fixture.data("real/xcresult/\(file)")
            switch kind {
            case .tests: assembler.addTestsJSON(data, source: file)
            case .legacy: assembler.addLegacyJSON(data, source: file)
            }
        }
        return assembler.finish()
    }

    func testEveryFileGivesTheExpectedVerdictAndTheInvariantsHold() throws {
        for entry in Self.cases {
            let name = entry.files.joined(separator: " + ")
            let result = try XCTUnwrap(try Self.report(entry.files, entry.kind), name)
            let layer = try XCTUnwrap(result.record.layers.first, name)
            let count = { (status: TestCaseResult.Status) in layer.tests.filter { $0.status == status }.count }
            let outcome = layer.outcome?.rawValue ?? "none"
            XCTAssertEqual("\(outcome) \(count(.passed)) \(count(.failed)) \(count(.skipped))", entry.expected, name)
            if count(.failed) > 0 { XCTAssertNotEqual(layer.outcome, .passed, name) }
            if let decided = layer.outcome, [.hostConfig, .infrastructure].contains(decided) {
                XCTAssertEqual(result.exitCode, .environmentFailure, name)
            }
            XCTAssertFalse(layer.evidence.isEmpty, "\(name): an outcome without evidence")
            // The counts agree with the bundle's totals, or the evidence says why not.
            if let totals = layer.evidence.first(where: { $0.hasPrefix("bundle: result") }),
                !totals.hasSuffix(" of \(layer.tests.count)")
            {
                XCTAssertTrue(
                    layer.tests.isEmpty || layer.evidence.contains { $0.contains("may not be of the same run") },
                    "\(name): \(layer.evidence)")
            }
            let encoder = JSONEncoder()
            encoder.outputFormatting = .sortedKeys
            let again = try XCTUnwrap(try Self.report(entry.files, entry.kind), name)
            XCTAssertEqual(try encoder.encode(again.record), try encoder.encode(result.record), "\(name): differs")
        }
    }

    func testTheRecordAloneQuotesItsTotals() throws {
        let result = try XCTUnwrap(try Self.report(["xcresultkit-invocation-record.json"], .legacy))
        XCTAssertTrue(
            result.record.layers[0].evidence.contains("bundle: result Passed, 1 passed, 0 failed, 0 skipped of 1"),
            "\(result.record.layers[0].evidence)")
    }

    /// One test's `ActionTestSummary` alone is no result: refused, naming what to give instead (exit 2).
    func testALoneTestSummaryIsRefused() throws {
        XCTAssertNil(try Self.report(["xcresultkit-test-summary.json"], .legacy))
    }

    /// The attachments of a real `ActionTestSummary` (Xcode 11): what `pipe run` exports on an Xcode before 16.
    func testALegacyTestSummaryListsItsAttachmentsWithTheirPayloadIDs() throws {
        let data = try Fixture.data("real/xcresult/xcresultkit-test-summary.json")
        guard case .testSummary(let summary) = try XcresultLegacyDocument.read(JSONSerialization.jsonObject(with: data))
        else { return XCTFail("not read as an ActionTestSummary") }
        XCTAssertEqual(summary.result.identifier, "ViewControllerTests/testViewControllerWithTwoDetails()")
        XCTAssertEqual(
            summary.attachments.map(\.name), ["ViewControllerWithTwoDetails", "ViewControllerWithTwoDetails"])
        XCTAssertEqual(summary.attachments.map(\.uniformTypeIdentifier), ["public.png", "chute.styleSheet"])
        XCTAssertEqual(
            summary.attachments.first?.filename,
            "ViewControllerWithTwoDetails_1_6797ED56-5335-4E26-B1E4-95777E1AAB28.png")
        XCTAssertEqual(
            summary.attachments.first?.payloadID,
            "0~j4gZ6UZzbaWO3v9w7LhCEjud7KE3XOAuf1POvoeeq6lrqDWq8tfVUqtMWLLgXsYXq13_Ntazj8-Eu50MtZCc6g==")
        XCTAssertEqual(summary.attachments.map(\.payloadSize), [34674, 867])
    }
}
