import Foundation
import PipeCore

/// The root record of a result bundle in the legacy JSON (`ActionsInvocationRecord`, what
/// `xcrun xcresulttool get --legacy --format json --path X.xcresult` prints without `--id`; `apple-formats.md` 5.4).
///
/// It holds each action's build and test status, the issues (test failures, build errors) and the counts; the
/// tests themselves are behind each action's `testsRef`, fetched with `--id` (`XcresultLegacyTestPlanRunSummaries`).
public struct XcresultLegacyInvocationRecord: Equatable, Sendable {
    public static let typeName = "ActionsInvocationRecord"

    public var actions: [Action]
    /// The record's own metrics (all actions together).
    public var metrics: Metrics

    /// One scheme action (`Test`, `Build`, …) with its build and its run.
    public struct Action: Equatable, Sendable {
        /// `Testing workspace Workspace with scheme Workspace-Workspace`.
        public var title: String?
        /// `Test`, `Build`, …
        public var schemeCommandName: String?
        /// `2024-06-01T20:06:44.973+0200`, as written.
        public var startedTime: String?
        public var endedTime: String?
        public var destination: Destination?
        /// `succeeded`, `failed`, `notRequested`, …
        public var buildStatus: String?
        public var actionStatus: String?
        /// `buildResult.issues.errorSummaries`: compiler and other build errors.
        public var buildErrors: [Issue]
        /// `actionResult.issues.testFailureSummaries` (a destination that could not be found is recorded here too).
        public var testFailures: [Issue]
        /// `actionResult.issues.errorSummaries`.
        public var actionErrors: [Issue]
        public var metrics: Metrics
        /// `actionResult.testsRef.id`: the `ActionTestPlanRunSummaries` with the tests.
        public var testsReferenceID: String?
    }

    /// `runDestination`: the device the action ran on.
    public struct Destination: Equatable, Sendable {
        /// `iPad Pro (12.9-inch) (6th generation)`.
        public var displayName: String?
        /// The simulator's UDID.
        public var deviceIdentifier: String?
        public var operatingSystemVersion: String?
        /// `iOS Simulator`.
        public var platform: String?
    }

    /// An `IssueSummary` or `TestFailureIssueSummary`.
    public struct Issue: Equatable, Sendable {
        /// `Uncategorized`, `Semantic Issue`, `Swift Compiler Error`, …
        public var issueType: String?
        public var message: String
        /// `Framework2Tests.testHello()`, for test failures.
        public var testCaseName: String?
        /// `File.swift:7`, from `documentLocationInCreatingWorkspace.url`, when there is one.
        public var location: String?
    }

    /// `ResultMetrics`; zero counts are omitted by xcresulttool and read as `nil`.
    public struct Metrics: Equatable, Sendable {
        public var testsCount: Int?
        public var testsFailedCount: Int?
        public var testsSkippedCount: Int?
        public var errorCount: Int?
        public var warningCount: Int?
    }

    /// Reads the root record.
    ///
    /// - Throws: `XcresultLegacyError.unsupportedType` when the object is not an `ActionsInvocationRecord`.
    public init(_ object: XcresultLegacyObject) throws {
        guard object.typeName == Self.typeName else {
            throw XcresultLegacyError.unsupportedType(object.typeName ?? "(none)", supported: [Self.typeName])
        }
        actions = object.array("actions").map(Self.action)
        metrics = Self.metrics(object.object("metrics"))
    }

    /// Every test failure of every action, as failed test results named `Suite/test()` like log lines are.
    public var failedTests: [TestCaseResult] {
        actions.flatMap(\.testFailures).compactMap { issue in
            guard let name = issue.testCaseName else { return nil }
            return TestCaseResult(
                identifier: TestIdentifier.normalize(name), status: .failed, failureMessage: issue.message,
                failureLocation: issue.location)
        }
    }

    private static func action(_ object: XcresultLegacyObject) -> Action {
        let build = object.object("buildResult")
        let result = object.object("actionResult")
        let destination = object.object("runDestination").map { destination in
            let device = destination.object("targetDeviceRecord")
            return Destination(
                displayName: destination.string("displayName"), deviceIdentifier: device?.string("identifier"),
                operatingSystemVersion: device?.string("operatingSystemVersion"),
                platform: device?.object("platformRecord")?.string("userDescription"))
        }
        return Action(
            title: object.string("title"), schemeCommandName: object.string("schemeCommandName"),
            startedTime: object.string("startedTime"), endedTime: object.string("endedTime"),
            destination: destination, buildStatus: build?.string("status"), actionStatus: result?.string("status"),
            buildErrors: issues(build?.object("issues")?.array("errorSummaries")),
            testFailures: issues(result?.object("issues")?.array("testFailureSummaries")),
            actionErrors: issues(result?.object("issues")?.array("errorSummaries")),
            metrics: metrics(result?.object("metrics")), testsReferenceID: result?.referenceID("testsRef"))
    }

    private static func issues(_ objects: [XcresultLegacyObject]?) -> [Issue] {
        (objects ?? []).compactMap { object in
            guard let message = object.string("message") else { return nil }
            let url = object.object("documentLocationInCreatingWorkspace")?.string("url")
            return Issue(
                issueType: object.string("issueType"), message: message, testCaseName: object.string("testCaseName"),
                location: url.flatMap(location(fromDocumentURL:)))
        }
    }

    private static func metrics(_ object: XcresultLegacyObject?) -> Metrics {
        Metrics(
            testsCount: object?.int("testsCount"), testsFailedCount: object?.int("testsFailedCount"),
            testsSkippedCount: object?.int("testsSkippedCount"), errorCount: object?.int("errorCount"),
            warningCount: object?.int("warningCount"))
    }

    /// `file:///…/Framework2FileTests.swift#EndingLineNumber=7&StartingLineNumber=7` → `Framework2FileTests.swift:7`
    /// (the line number as the bundle records it).
    public static func location(fromDocumentURL url: String) -> String? {
        let parts = url.split(separator: "#", maxSplits: 1, omittingEmptySubsequences: false)
        guard let path = parts.first, let slash = path.lastIndex(of: "/") else { return nil }
        let file = String(path[path.index(after: slash)...]).removingPercentEncoding ?? String(path)
        guard !file.isEmpty else { return nil }
        guard parts.count == 2 else { return file }
        let fragment = parts[1].split(separator: "&")
        let line = fragment.first { $0.hasPrefix("StartingLineNumber=") }?.dropFirst("StartingLineNumber=".count)
        guard let line, !line.isEmpty, line.allSatisfy(\.isNumber) else { return file }
        return "\(file):\(line)"
    }
}
