import Foundation
import PipeApple
import PipeCore
import PipeTestSupport
import XCTest

/// What a hostile host puts in `simctl` JSON, xcodebuild logs and xcresulttool answers is read as data: every string
/// of the injection corpus comes out as the same value or is refused, and a UDID that is not plain is never chosen.
final class InjectionCorpusTests: XCTestCase {
    private func listing(name: String, udid: String) throws -> Data {
        try JSONSerialization.data(withJSONObject: [
            "devices": [
                "com.apple.CoreSimulator.SimRuntime.iOS-18-2": [
                    [
                        "udid": udid, "name": name, "state": "Shutdown", "isAvailable": true,
                        "deviceTypeIdentifier": "com.apple.CoreSimulator.SimDeviceType.iPhone-16",
                    ]
                ]
            ]
        ])
    }

    func testSimulatorNamesAreDataAndHostileUDIDsAreNeverAvailable() throws {
        let genuine = "4F5A6B7C-1D2E-4F3A-9B8C-7D6E5F4A3B2C"
        for value in InjectionCorpus.strings {
            let named = try SimctlListParser.parseJSON(try listing(name: value, udid: genuine))
            XCTAssertEqual(named.map(\.name), [value])
            XCTAssertEqual(named.map(\.isAvailable), [true])
            let hostile = try SimctlListParser.parseJSON(try listing(name: "iPhone 16", udid: value))
            XCTAssertEqual(hostile.map(\.isAvailable), [false], "UDID \(value.prefix(40)) was usable")
            XCTAssertEqual(
                hostile.first?.availabilityError,
                "its UDID is not plain letters, digits and dashes, so Pipe never uses it")
        }
    }

    func testTheTextListingRefusesHostileUDIDsToo() throws {
        let text = """
            == Devices ==
            -- iOS 18.2 --
                iPhone 16 (--erase-all) (Shutdown)
                iPhone 15 (4F5A6B7C-1D2E-4F3A-9B8C-7D6E5F4A3B2C) (Shutdown)
            """
        let simulators = try SimctlListParser.parseText(text)
        XCTAssertEqual(simulators.map(\.isAvailable), [false, true])
    }

    func testTestNamesAndMessagesInALogStayData() {
        for value in InjectionCorpus.strings where !value.contains("\n") && !value.contains("\r") && value.count < 1_000
        {
            let log = """
                Test Case '-[ReaderTests.Suite test_\(value)]' started.
                /tmp/Suite.swift:12: error: -[ReaderTests.Suite test_\(value)] : XCTAssertEqual failed: \(value)
                Test Case '-[ReaderTests.Suite test_\(value)]' failed (0.001 seconds).

                """
            let parsed = XcodebuildLogParser.parse(Data(log.utf8))
            let failed = parsed.events.compactMap { event -> TestCaseResult? in
                if case .testFinished(let result, _) = event, result.status == .failed { return result }
                return nil
            }
            XCTAssertEqual(failed.count, 1, "\(value.prefix(40)): \(parsed.events)")
            XCTAssertTrue(failed.first?.identifier.contains("test_") ?? false)
        }
    }

    func testXcresultSummaryFieldsStayData() throws {
        for value in InjectionCorpus.strings {
            let summary: [String: Any] = [
                "title": value, "environmentDescription": value, "result": "Failed", "totalTestCount": 1,
                "passedTests": 0, "failedTests": 1, "skippedTests": 0, "expectedFailures": 0, "startTime": 1.0,
                "finishTime": 2.0,
                "testFailures": [
                    ["testName": value, "targetName": value, "failureText": value, "testIdentifierString": value]
                ],
                "devicesAndConfigurations": [], "statistics": [], "topInsights": [],
            ]
            let decoded = try XcresultSummary.decode(try JSONSerialization.data(withJSONObject: summary))
            // Read as text, with terminal control sequences removed (issue 18 §3), never interpreted.
            XCTAssertEqual(decoded.testFailures.first?.failureText, ControlSequences.strip(value))
        }
    }
}
