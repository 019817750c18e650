import Foundation
import PipeApple
import PipeCore
import XCTest

/// Each test's target, as a retry of only the failed tests needs it (`-only-testing:<target>/<suite>/<test>`), read
/// from real logs and bundles.
final class TestTargetTests: XCTestCase {
    func testXCTestsModuleIsTheTarget() {
        XCTAssertEqual(TestIdentifier.module(ofPrinted: "-[ReaderTests.ReadingIDTests testTrims]"), "ReaderTests")
        XCTAssertEqual(TestIdentifier.module(ofPrinted: " -[App.Tests.Suite test] "), "App.Tests")
        XCTAssertNil(TestIdentifier.module(ofPrinted: "-[ObjCSuite testThing]"), "Objective-C names no module")
        XCTAssertNil(TestIdentifier.module(ofPrinted: "Suite.test()"), "xcodebuild's own line names none")
        XCTAssertNil(TestIdentifier.module(ofPrinted: "-[.Suite test]"))
    }

    /// `test-failed-xcode15.log`: a real Xcode 15 run of several test targets.
    func testARealLogNamesEachTestsTarget() throws {
        let (events, _) = XcodebuildLogParser.parse(try Fixture.data("xcodebuild/test-failed-xcode15.log"))
        let finished = events.compactMap { event -> TestCaseResult? in
            if case .testFinished(let result, _) = event { return result }
            return nil
        }
        XCTAssertFalse(finished.isEmpty)
        XCTAssertTrue(finished.allSatisfy { $0.target != nil }, "\(finished.filter { $0.target == nil })")
        let failed = try XCTUnwrap(finished.first { $0.status == .failed })
        XCTAssertEqual(failed.target, "CalendarAppEventCodeTests")
        XCTAssertEqual(failed.qualifiedIdentifier, "CalendarAppEventCodeTests/" + failed.identifier)
    }

    /// `tests-xcode26.1.json`: `get test-results tests` of a real bundle, whose test bundle node names the target.
    func testARealBundleNamesEachTestsTarget() throws {
        let cases = try XcresultTestResults.decode(try Fixture.data("xcresult/tests-xcode26.1.json")).testCases
        XCTAssertFalse(cases.isEmpty)
        XCTAssertTrue(cases.allSatisfy { $0.target == "FastlaneTrainerExampleTests" }, "\(cases.map(\.target))")
    }

    func testTheBundleGivesALogTestItsTarget() {
        let log = [TestCaseResult(identifier: "S/t()", status: .failed)]
        let bundle = [TestCaseResult(identifier: "S/t()", status: .failed, target: "AppTests")]
        XCTAssertEqual(TestResultMerge.merge(log: log, bundle: bundle).first?.target, "AppTests")
    }
}
