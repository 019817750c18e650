import Foundation
import PipeCore

/// The output of `xcrun xcresulttool get test-results summary --path X.xcresult` (Xcode 16+, xcresulttool ≥ 23021).
///
/// Only `title`, `result` and the four counts are required: real output always has the rest, but captures trimmed
/// by tools drop `devicesAndConfigurations`, `statistics` and `topInsights`, and `totalTestCount` sorts after them.
public struct XcresultSummary: Equatable, Sendable, Decodable {
    public var title: String
    public var environmentDescription: String?
    /// `unknown` when no test ran (e.g. `-only-testing` matched nothing).
    public var result: XcresultTestResult
    public var passedTests: Int
    public var failedTests: Int
    public var skippedTests: Int
    public var expectedFailures: Int
    /// When absent, the sum of the four counts.
    public var totalTestCount: Int
    /// Seconds since 1970.
    public var startTime: Double?
    public var finishTime: Double?
    public var testFailures: [TestFailure]
    public var devicesAndConfigurations: [DeviceAndConfiguration]

    /// One failed test (`testFailures`).
    public struct TestFailure: Equatable, Sendable, Decodable {
        public var testName: String
        public var targetName: String?
        public var failureText: String
        /// Deprecated by Apple; an integer.
        public var testIdentifier: Int64?
        /// `Suite/test()` (Xcode 16.3+).
        public var testIdentifierString: String?
        public var testIdentifierURL: String?

        /// The failure as a test result, named like log lines are (`Suite/test()`).
        public var testCaseResult: TestCaseResult {
            TestCaseResult(
                identifier: testIdentifierString ?? testName, status: .failed, failureMessage: failureText)
        }

        /// `Test exceeded execution time allowance of 1 minute`: XCTest's per-test limit, a test failure.
        public var exceededExecutionTimeAllowance: Bool {
            failureText.contains("exceeded execution time allowance")
        }
    }

    /// Counts per run destination and test plan configuration.
    public struct DeviceAndConfiguration: Equatable, Sendable, Decodable {
        public var device: Device?
        public var passedTests: Int?
        public var failedTests: Int?
        public var skippedTests: Int?
        public var expectedFailures: Int?
    }

    /// The device (simulator) the tests ran on.
    public struct Device: Equatable, Sendable, Decodable {
        public var deviceId: String?
        public var deviceName: String?
        public var modelName: String?
        public var osVersion: String?
        public var osBuildNumber: String?
        public var platform: String?
        public var architecture: String?
    }

    private enum CodingKeys: String, CodingKey {
        case title, environmentDescription, result, passedTests, failedTests, skippedTests, expectedFailures
        case totalTestCount, startTime, finishTime, testFailures, devicesAndConfigurations
    }

    public init(from decoder: Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        title = try container.decode(String.self, forKey: .title)
        environmentDescription = try container.decodeIfPresent(String.self, forKey: .environmentDescription)
        result = try container.decode(XcresultTestResult.self, forKey: .result)
        passedTests = try container.decode(Int.self, forKey: .passedTests)
        failedTests = try container.decode(Int.self, forKey: .failedTests)
        skippedTests = try container.decode(Int.self, forKey: .skippedTests)
        expectedFailures = try container.decodeIfPresent(Int.self, forKey: .expectedFailures) ?? 0
        totalTestCount =
            try container.decodeIfPresent(Int.self, forKey: .totalTestCount)
            ?? passedTests + failedTests + skippedTests + expectedFailures
        startTime = try container.decodeIfPresent(Double.self, forKey: .startTime)
        finishTime = try container.decodeIfPresent(Double.self, forKey: .finishTime)
        testFailures = try container.decodeIfPresent([TestFailure].self, forKey: .testFailures) ?? []
        devicesAndConfigurations =
            try container.decodeIfPresent([DeviceAndConfiguration].self, forKey: .devicesAndConfigurations) ?? []
    }

    /// Decodes the command's standard output.
    ///
    /// - Throws: `XcresultError` for empty output, text that is not JSON (quoted in the message), or JSON without
    ///   the required fields.
    public static func decode(_ output: Data) throws -> XcresultSummary {
        try XcresultJSON.decode(XcresultSummary.self, from: output, command: "get test-results summary")
    }

    /// Seconds between start and finish, when both are known.
    public var durationSeconds: Double? {
        guard let startTime, let finishTime else { return nil }
        return finishTime - startTime
    }
}
