import Foundation
import PipeApple
import PipeCore
import XCTest

/// The legacy `xcresulttool get --legacy --format json` readers of PipeApple, against the fixtures built from
/// `apple-formats.md` 5.4 (see `Fixtures/README.md`).
final class XcresultLegacyTests: XCTestCase {
    private func document(_ name: String) throws -> XcresultLegacyDocument {
        try XcresultLegacyDocument.read(try Fixture.json("xcresult-legacy/\(name)"))
    }

    func testTheRootRecordOfAFailedTestRun() throws {
        guard case .invocationRecord(let record) = try document("root-test-failure-xcode15.3.json") else {
            return XCTFail("not read as the root record")
        }
        XCTAssertEqual(record.metrics.testsCount, 5)
        XCTAssertEqual(record.metrics.testsFailedCount, 1)
        let action = try XCTUnwrap(record.actions.first)
        XCTAssertEqual(action.schemeCommandName, "Test")
        XCTAssertEqual(action.buildStatus, "succeeded")
        XCTAssertEqual(action.actionStatus, "failed")
        XCTAssertEqual(action.startedTime, "2024-06-01T20:06:44.973+0200")
        XCTAssertEqual(
            action.testsReferenceID,
            "0~_nJcMfmYtL75ZA_SPkjI1RYzgbEkjbq_o2hffLy4RQuPOW81Uu0xIwZX0ntR4Tof5xv2Jwe8opnwD7IVBQ_VOQ==")
        XCTAssertEqual(action.destination?.deviceIdentifier, "6DAFB815-7E1C-4CED-B316-83D9B49E552E")
        XCTAssertEqual(action.destination?.platform, "iOS Simulator")
        XCTAssertEqual(action.destination?.operatingSystemVersion, "17.4")
        XCTAssertEqual(
            record.failedTests,
            [
                TestCaseResult(
                    identifier: "Framework2Tests/testHello()", status: .failed,
                    failureMessage:
                        #"XCTAssertEqual failed: ("Framework2File.hello() no") is not equal to ("Framework2File.hello()")"#,
                    failureLocation: "Framework2FileTests.swift:7")
            ])
        let summary = XcresultSummary(legacy: record)
        XCTAssertEqual(summary.result, .failed)
        XCTAssertEqual([summary.passedTests, summary.failedTests, summary.totalTestCount], [4, 1, 5])
    }

    func testTheTestsFetchedByTestsRef() throws {
        guard case .testPlanRunSummaries(let plan) = try document("tests-ref-xcode15.3.json") else {
            return XCTFail("not read as the test plan run summaries")
        }
        XCTAssertEqual(
            plan.tests.map(\.identifier),
            [
                "AppDelegateTests/testHello()", "Framework1Tests/testHello()",
                "Framework1Tests/testHelloFromFramework2()",
                "Framework2Tests/testHello()", "MyPublicClassTests/testHello()",
            ])
        XCTAssertEqual(plan.tests.map(\.status), [.passed, .passed, .passed, .failed, .passed])
        XCTAssertEqual(plan.tests[3].durationSeconds ?? 0, 0.043884992599487305, accuracy: 1e-12)
        XCTAssertEqual(Array(plan.summaryReferenceIDs.keys), ["Framework2Tests/testHello()"])
    }

    func testOneTestInDetail() throws {
        guard case .testSummary(let detail) = try document("test-summary-failure.json") else {
            return XCTFail("not read as a test summary")
        }
        XCTAssertEqual(detail.result.identifier, "Framework2Tests/testHello()")
        XCTAssertEqual(detail.result.status, .failed)
        XCTAssertEqual(detail.result.failureLocation, "Framework2FileTests.swift:7")
    }

    func testABuildFailureAndADestinationFailure() throws {
        guard case .invocationRecord(let build) = try document("root-build-failure.json"),
            case .invocationRecord(let destination) = try document("root-destination-failure.json")
        else { return XCTFail("not read as root records") }
        XCTAssertEqual(build.actions.first?.buildStatus, "failed")
        XCTAssertEqual(build.actions.first?.actionStatus, "notRequested")
        XCTAssertEqual(build.actions.first?.buildErrors.first?.location, "EventCodeConfirmViewModel.swift:54")
        XCTAssertEqual(build.actions.first?.buildErrors.first?.issueType, "Swift Compiler Error")
        // A destination that could not be found is filed under test failures, without a test name: not a test.
        XCTAssertEqual(destination.actions.first?.testFailures.count, 1)
        XCTAssertEqual(destination.failedTests, [])
        XCTAssertEqual(XcresultSummary(legacy: destination).result, .unknown)
    }

    func testOtherJSONIsRefusedWithTheReason() throws {
        XCTAssertThrowsError(try XcresultLegacyDocument.read(try Fixture.json("report/summary-failed/summary.json"))) {
            XCTAssertEqual(
                $0 as? XcresultLegacyError,
                .notLegacyJSON(
                    detail: "it has no `_type`; it looks like `get test-results …` output (use --tests-json or "
                        + "--summary-json)"))
        }
        XCTAssertThrowsError(try XcresultLegacyDocument.read(["_type": ["_name": "ActionTestActivitySummary"]])) {
            XCTAssertEqual(
                $0 as? XcresultLegacyError,
                .unsupportedType("ActionTestActivitySummary", supported: XcresultLegacyDocument.supportedTypes))
        }
        XCTAssertThrowsError(try XcresultLegacyDocument.read([1, 2]))
    }

    func testDocumentLocations() {
        let location = XcresultLegacyInvocationRecord.location(fromDocumentURL:)
        XCTAssertEqual(
            location("file:///a/b/My%20File.swift#EndingLineNumber=7&StartingLineNumber=7"), "My File.swift:7")
        XCTAssertEqual(location("file:///a/b/File.swift"), "File.swift")
        XCTAssertEqual(location("file:///a/b/File.swift#CharacterRangeLen=0"), "File.swift")
        XCTAssertNil(location("no-slash"))
    }
}
