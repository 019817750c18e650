import Foundation
import PipeApple
import PipeCore
import XCTest

final class XcresultSummaryTests: XCTestCase {
    func testPassingRunOfXcode26() throws {
        let summary = try XcresultSummary.decode(try Fixture.data("xcresult/summary-passed-xcode26.3.json"))
        XCTAssertEqual(summary.title, "Test - Iris")
        XCTAssertEqual(summary.result, .passed)
        XCTAssertEqual(summary.passedTests, 406)
        XCTAssertEqual(summary.totalTestCount, 406, "absent in the trimmed capture: the sum of the counts")
        XCTAssertEqual(summary.testFailures, [])
        XCTAssertEqual(summary.devicesAndConfigurations.first?.device?.deviceId, "C051CA11-78BB-41FA-BBA0-9D46165D1F86")
        XCTAssertEqual(summary.devicesAndConfigurations.first?.device?.osVersion, "26.3.1")
        XCTAssertEqual(try XCTUnwrap(summary.durationSeconds), 62.279, accuracy: 0.001)
    }

    func testFailingRunWithTheDeprecatedNumericIdentifier() throws {
        let summary = try XcresultSummary.decode(try Fixture.data("xcresult/summary-failed.json"))
        XCTAssertEqual(summary.result, .failed)
        XCTAssertEqual([summary.passedTests, summary.failedTests, summary.totalTestCount], [1, 1, 2])
        let failure = try XCTUnwrap(summary.testFailures.first)
        XCTAssertEqual(failure.testIdentifier, 1)
        XCTAssertEqual(failure.failureText, "XCTAssertEqual failed: (\"0\") is not equal to (\"3\")")
        XCTAssertEqual(
            failure.testCaseResult,
            TestCaseResult(
                identifier: "CounterPersistenceTests/testCountSurvivesStoreRecreation()", status: .failed,
                failureMessage: "XCTAssertEqual failed: (\"0\") is not equal to (\"3\")"))
        XCTAssertFalse(failure.exceededExecutionTimeAllowance)
        XCTAssertTrue(summary.devicesAndConfigurations.isEmpty)
    }

    func testZeroTestsIsUnknown() throws {
        let summary = try XcresultSummary.decode(try Fixture.data("xcresult/summary-zero-tests.json"))
        XCTAssertEqual(summary.result, .unknown)
        XCTAssertEqual(summary.totalTestCount, 0)
        XCTAssertNil(summary.environmentDescription)
    }

    func testLegacyRefusalTextIsQuotedWithAHint() throws {
        XCTAssertThrowsError(try XcresultSummary.decode(try Fixture.data("xcresult/legacy-refusal.txt"))) { error in
            guard case .notJSON(_, let firstLine)? = error as? XcresultError else {
                return XCTFail("unexpected \(error)")
            }
            XCTAssertTrue(firstLine.hasPrefix("Error: This command is deprecated"))
            XCTAssertTrue("\(error)".contains("xcresulttool version"), "\(error)")
        }
    }

    func testMissingRequiredFieldAndEmptyOutput() {
        XCTAssertThrowsError(try XcresultSummary.decode(Data(#"{ "title" : "Test - X", "passedTests" : 1 }"#.utf8))) {
            error in
            guard case .invalidJSON(_, let path, let detail)? = error as? XcresultError else {
                return XCTFail("unexpected \(error)")
            }
            XCTAssertEqual(path, "the top level")
            XCTAssertTrue(detail.contains("\"result\"") || detail.contains("\"failedTests\""), detail)
        }
        XCTAssertThrowsError(try XcresultSummary.decode(Data())) {
            XCTAssertEqual($0 as? XcresultError, .emptyOutput(command: "get test-results summary"))
        }
    }

    func testUnknownResultValuesAreKept() throws {
        let json = #"{ "title" : "T", "result" : "Mixed", "passedTests" : 0, "failedTests" : 0, "skippedTests" : 0 }"#
        XCTAssertEqual(try XcresultSummary.decode(Data(json.utf8)).result, .other("Mixed"))
    }
}

final class XcresultTestResultsTests: XCTestCase {
    func testXcode26TreeWithDurationsInSeconds() throws {
        let results = try XcresultTestResults.decode(try Fixture.data("xcresult/tests-xcode26.1.json"))
        XCTAssertEqual(results.devices.first?.deviceName, "iPhone 17 Pro Max")
        XCTAssertEqual(
            results.testCases,
            [
                TestCaseResult(
                    identifier: "FastlaneTrainerTests/MathTests/testArithmetic()", status: .passed, durationSeconds: 2,
                    target: "FastlaneTrainerExampleTests"),
                TestCaseResult(
                    identifier: "FastlaneTrainerTests/SkipTests/ResourceTests/testWithDatabaseCleanup()",
                    status: .failed,
                    durationSeconds: 2, failureMessage: "Caught error: TestError(message: \"Database not available\")",
                    failureLocation: "FastlaneTrainerExampleTests.swift:307", target: "FastlaneTrainerExampleTests"),
                TestCaseResult(
                    identifier: "FastlaneTrainerTests/SkipTests/EnvironmentTests/testProductionConfig()",
                    status: .skipped,
                    durationSeconds: 1,
                    failureMessage: "Test 'Production config test' skipped: Test only runs in production",
                    target: "FastlaneTrainerExampleTests"),
            ])
    }

    func testXcode16TreeWithLocalizedDurations() throws {
        let cases = try XcresultTestResults.decode(try Fixture.data("xcresult/tests-xcode16.2.json")).testCases
        XCTAssertEqual(cases.count, 5)
        XCTAssertEqual(cases[0].failureLocation, "FastlaneTrainerExampleUITests.swift:129")
        XCTAssertEqual(cases[0].failureMessage, "XCTAssertTrue failed")
        XCTAssertEqual(cases[1].durationSeconds, 22)
        let complexity = try XCTUnwrap(cases.first { $0.identifier.hasSuffix("testPasswordComplexity()") })
        XCTAssertEqual(try XCTUnwrap(complexity.durationSeconds), 0.011, accuracy: 1e-9)
        let length = try XCTUnwrap(cases.first { $0.identifier.hasSuffix("testPasswordLength()") })
        XCTAssertEqual(length.status, .failed)
        XCTAssertEqual(
            length.failureMessage, "Expectation failed: (password.count → 11) < 8\nPassword 'justbarely8' is too short")
    }

    func testDurationTexts() {
        XCTAssertEqual(XcresultTestResults.seconds(fromDuration: "0,11s"), 0.11)
        XCTAssertEqual(XcresultTestResults.seconds(fromDuration: "0.5s"), 0.5)
        XCTAssertEqual(XcresultTestResults.seconds(fromDuration: "22s"), 22)
        XCTAssertEqual(XcresultTestResults.seconds(fromDuration: "1m 5s"), 65)
        XCTAssertEqual(XcresultTestResults.seconds(fromDuration: "1h 2m"), 3720)
        XCTAssertEqual(XcresultTestResults.seconds(fromDuration: "12ms"), 0.012)
        for bad in ["", "s", "fast", "2 s", "1x", "0,,1s"] {
            XCTAssertNil(XcresultTestResults.seconds(fromDuration: bad), bad)
        }
    }

    func testEmptyRunAndMissingNodes() throws {
        let empty =
            #"{ "devices" : [], "testNodes" : [ { "name" : "TestPlan", "nodeType" : "Test Plan", "result" : "unknown" } ] }"#
        XCTAssertEqual(try XcresultTestResults.decode(Data(empty.utf8)).testCases, [])
        XCTAssertThrowsError(try XcresultTestResults.decode(Data(#"{ "devices" : [] }"#.utf8))) { error in
            guard case .invalidJSON(let command, _, let detail)? = error as? XcresultError else {
                return XCTFail("unexpected \(error)")
            }
            XCTAssertEqual(command, "get test-results tests")
            XCTAssertTrue(detail.contains("\"testNodes\""), detail)
        }
    }
}

final class XcresulttoolVersionTests: XCTestCase {
    func testRealVersionLines() throws {
        let lines = try Fixture.text("xcresult/xcresulttool-versions.txt").split(separator: "\n").map(String.init)
        let versions = try lines.map(XcresulttoolVersion.parse)
        XCTAssertEqual(
            versions,
            [
                XcresulttoolVersion(build: 23021, formatVersion: "3.53"),
                XcresulttoolVersion(build: 23025, formatVersion: "3.53"),
                XcresulttoolVersion(build: 24408, formatVersion: "3.56"),
            ])
        XCTAssertTrue(versions.allSatisfy(\.hasTestResultsCommands))
        XCTAssertTrue(versions.allSatisfy(\.legacyFlagRequired))
        XCTAssertFalse(XcresulttoolVersion(build: 23000).hasTestResultsCommands)
        XCTAssertEqual(
            XcresulttoolVersion.summaryArguments(bundlePath: "/w/a b.xcresult"),
            ["xcrun", "xcresulttool", "get", "test-results", "summary", "--path", "/w/a b.xcresult"])
    }

    func testUnrecognizedOutput() {
        for text in [
            "", "xcrun: error: unable to find utility \"xcresulttool\", not a developer tool or in PATH",
            "xcresulttool version abc",
        ] {
            XCTAssertThrowsError(try XcresulttoolVersion.parse(text), text) {
                guard case .unrecognizedVersion? = $0 as? XcresultError else { return XCTFail("unexpected \($0)") }
            }
        }
    }
}
