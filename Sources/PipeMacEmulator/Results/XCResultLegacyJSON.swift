import Foundation

/// The legacy object graph of `xcresulttool get --format json [--id …]` (Xcode 11–15, and Xcode 16+ with
/// `--legacy`; apple-formats.md 5.4 and Part 2 §2d), built from the emulator's record of a run: the root
/// `ActionsInvocationRecord`, the tests behind its `testsRef`, each test's `ActionTestSummary` behind its
/// `summaryRef`, and each attachment's payload behind its `payloadRef`.
///
/// Every value is wrapped as xcresulttool wraps it: `_type._name`, scalars as text in `_value`, arrays in
/// `_values`; metrics that are zero are left out, as Xcode leaves them out.
enum XCResultLegacyJSON {
    /// What an `--id` names.
    enum Reference: Equatable {
        case tests
        case testSummary(index: Int)
        case payload(index: Int)
    }

    static func id(_ reference: Reference) -> String {
        let text: String
        switch reference {
        case .tests: text = "tests"
        case .testSummary(let index): text = "summary/\(index)"
        case .payload(let index): text = "payload/\(index)"
        }
        return ResultBundle.objectID(for: Data(text.utf8))
    }

    /// The object an id names in this record, if any.
    static func reference(for id: String, in record: ResultBundleRecord) -> Reference? {
        if id == self.id(.tests) { return .tests }
        for index in record.tests.indices where id == self.id(.testSummary(index: index)) {
            return .testSummary(index: index)
        }
        for index in (record.attachments ?? []).indices where id == self.id(.payload(index: index)) {
            return .payload(index: index)
        }
        return nil
    }

    // MARK: - The root record

    static func root(_ record: ResultBundleRecord) -> AppleJSON {
        let failures = testFailureSummaries(record)
        let metrics = self.metrics(record)
        var actionIssues: [AppleJSON.Member] = []
        if !failures.isEmpty { actionIssues.append(.init("testFailureSummaries", array(failures))) }
        if let error = record.testRunError {
            let summary = typed(
                "IssueSummary", [.init("issueType", string("Uncategorized")), .init("message", string(error))])
            actionIssues.append(.init("errorSummaries", array([summary])))
        }
        let status: String
        if !record.buildSucceeded {
            status = "notRequested"
        } else {
            status =
                record.testRunError != nil || record.tests.contains { $0.status == "failed" } ? "failed" : "succeeded"
        }
        var actionResult: [AppleJSON.Member] = [
            .init("issues", typed("ResultIssueSummaries", actionIssues)),
            .init("metrics", typed("ResultMetrics", metrics)),
            .init("resultName", string("action")),
            .init("status", string(status)),
        ]
        if record.buildSucceeded {
            actionResult.append(
                .init(
                    "testsRef",
                    typed(
                        "Reference",
                        [
                            .init("id", string(id(.tests))),
                            .init(
                                "targetType",
                                typed("TypeDefinition", [.init("name", string("ActionTestPlanRunSummaries"))])),
                        ])))
        }
        let buildErrors = record.buildErrors.map { error -> AppleJSON in
            var members: [AppleJSON.Member] = [
                .init("issueType", string("Swift Compiler Error")), .init("message", string(error.message)),
            ]
            if let file = error.file {
                members.append(.init("documentLocationInCreatingWorkspace", location(file: file, line: error.line)))
            }
            return typed("IssueSummary", members)
        }
        var buildIssues: [AppleJSON.Member] = []
        if !buildErrors.isEmpty { buildIssues.append(.init("errorSummaries", array(buildErrors))) }
        var buildMetrics: [AppleJSON.Member] = []
        if !buildErrors.isEmpty { buildMetrics.append(.init("errorCount", int(buildErrors.count))) }
        var action: [AppleJSON.Member] = [
            .init("actionResult", typed("ActionResult", actionResult)),
            .init(
                "buildResult",
                typed(
                    "ActionResult",
                    [
                        .init("issues", typed("ResultIssueSummaries", buildIssues)),
                        .init("metrics", typed("ResultMetrics", buildMetrics)),
                        .init("resultName", string("build")),
                        .init("status", string(record.buildSucceeded ? "succeeded" : "failed")),
                    ])),
            .init("endedTime", date(record.finishTime)),
            .init("schemeCommandName", string("Test")),
            .init("schemeTaskName", string("BuildAndAction")),
            .init("startedTime", date(record.startTime)),
            .init("title", string("Testing project \(record.containerName) with scheme \(record.scheme)")),
        ]
        if let destination = record.destination { action.append(.init("runDestination", runDestination(destination))) }
        var rootIssues: [AppleJSON.Member] = []
        if !failures.isEmpty { rootIssues.append(.init("testFailureSummaries", array(failures))) }
        if !buildErrors.isEmpty { rootIssues.append(.init("errorSummaries", array(buildErrors))) }
        return typed(
            "ActionsInvocationRecord",
            [
                .init("actions", array([typed("ActionRecord", action)])),
                .init("issues", typed("ResultIssueSummaries", rootIssues)),
                .init("metrics", typed("ResultMetrics", metrics + buildMetrics)),
            ])
    }

    private static func testFailureSummaries(_ record: ResultBundleRecord) -> [AppleJSON] {
        record.tests.filter { $0.status == "failed" }.flatMap { test -> [AppleJSON] in
            let issues = test.failures.isEmpty ? [ResultBundleRecord.Issue(message: "failed")] : test.failures
            return issues.map { failure in
                var members: [AppleJSON.Member] = [
                    .init("issueType", string("Uncategorized")), .init("message", string(failure.message)),
                    .init("producingTarget", string(test.target)),
                    .init("testCaseName", string("\(test.suite).\(test.name)()")),
                ]
                if let file = failure.file {
                    members.append(
                        .init("documentLocationInCreatingWorkspace", location(file: file, line: failure.line)))
                }
                return typed("TestFailureIssueSummary", members, supertype: "IssueSummary")
            }
        }
    }

    private static func metrics(_ record: ResultBundleRecord) -> [AppleJSON.Member] {
        var members: [AppleJSON.Member] = []
        let failed = record.tests.filter { $0.status == "failed" }.count
        let skipped = record.tests.filter { $0.status == "skipped" }.count
        if !record.tests.isEmpty { members.append(.init("testsCount", int(record.tests.count))) }
        if failed > 0 { members.append(.init("testsFailedCount", int(failed))) }
        if skipped > 0 { members.append(.init("testsSkippedCount", int(skipped))) }
        return members
    }

    private static func runDestination(_ destination: ResultBundleRecord.Destination) -> AppleJSON {
        typed(
            "ActionRunDestinationRecord",
            [
                .init("displayName", string(destination.name)),
                .init("targetArchitecture", string(destination.architecture)),
                .init(
                    "targetDeviceRecord",
                    typed(
                        "ActionDeviceRecord",
                        [
                            .init("identifier", string(destination.udid)),
                            .init("modelName", string(destination.modelName)),
                            .init("name", string(destination.name)),
                            .init("operatingSystemVersion", string(destination.osVersion)),
                            .init(
                                "platformRecord",
                                typed(
                                    "ActionPlatformRecord",
                                    [
                                        .init("identifier", string("com.apple.platform.iphonesimulator")),
                                        .init("userDescription", string(destination.platform)),
                                    ])),
                        ])),
            ])
    }

    // MARK: - The tests (`--id <testsRef>`)

    static func tests(_ record: ResultBundleRecord) -> AppleJSON {
        let targets = ordered(record.tests.map(\.target))
        let testables = targets.map { target -> AppleJSON in
            let inTarget = record.tests.enumerated().filter { $0.element.target == target }
            let suites = ordered(inTarget.map(\.element.suite)).map { suite -> AppleJSON in
                let inSuite = inTarget.filter { $0.element.suite == suite }
                return group(
                    suite, duration: inSuite.map(\.element.duration).reduce(0, +),
                    subtests: inSuite.map { testMetadata($0.element, index: $0.offset, record: record) })
            }
            let duration = inTarget.map(\.element.duration).reduce(0, +)
            let bundle = group("\(target).xctest", duration: duration, subtests: suites)
            return typed(
                "ActionTestableSummary",
                [
                    .init("identifierURL", string(url(record, target))),
                    .init("name", string(target)),
                    .init("projectRelativePath", string("\(record.containerName).xcodeproj")),
                    .init("targetName", string(target)),
                    .init("testKind", string("app hosted")),
                    .init("tests", array([group("All tests", duration: duration, subtests: [bundle])])),
                ], supertype: "ActionAbstractTestSummary")
        }
        return typed(
            "ActionTestPlanRunSummaries",
            [
                .init(
                    "summaries",
                    array([
                        typed(
                            "ActionTestPlanRunSummary",
                            [
                                .init("name", string("Test Scheme Action")),
                                .init("testableSummaries", array(testables)),
                            ], supertype: "ActionAbstractTestSummary")
                    ]))
            ])
    }

    private static func group(_ name: String, duration: Double, subtests: [AppleJSON]) -> AppleJSON {
        typed(
            "ActionTestSummaryGroup",
            [
                .init("duration", double(duration)), .init("identifier", string(name)), .init("name", string(name)),
                .init("subtests", array(subtests)),
            ], supertype: "ActionTestSummaryIdentifiableObject")
    }

    private static func testMetadata(_ test: ResultBundleRecord.TestCase, index: Int, record: ResultBundleRecord)
        -> AppleJSON
    {
        typed(
            "ActionTestMetadata",
            [
                .init("duration", double(test.duration)),
                .init("failureSummariesCount", int(test.status == "failed" ? max(1, test.failures.count) : 0)),
                .init("identifier", string(test.identity.identifierString)),
                .init("identifierURL", string(url(record, test.target, test.suite, test.name))),
                .init("name", string(test.name + "()")),
                .init(
                    "summaryRef",
                    typed(
                        "Reference",
                        [
                            .init("id", string(id(.testSummary(index: index)))),
                            .init("targetType", typed("TypeDefinition", [.init("name", string("ActionTestSummary"))])),
                        ])),
                .init("testStatus", string(status(test.status))),
            ], supertype: "ActionTestSummaryIdentifiableObject")
    }

    // MARK: - One test (`--id <summaryRef>`)

    static func testSummary(_ record: ResultBundleRecord, index: Int) -> AppleJSON {
        let test = record.tests[index]
        let failures = (test.status == "failed" && test.failures.isEmpty) ? [.init(message: "failed")] : test.failures
        let failureSummaries =
            test.status == "failed"
            ? failures.map { failure -> AppleJSON in
                var members: [AppleJSON.Member] = [
                    .init("isPerformanceFailure", string("false")), .init("message", string(failure.message)),
                ]
                if let file = failure.file { members.append(.init("fileName", string(file))) }
                if let line = failure.line { members.append(.init("lineNumber", int(line))) }
                return typed("ActionTestFailureSummary", members)
            } : []
        let attachments = (record.attachments ?? []).enumerated().filter { $0.element.test == test.identity }
        let activities = attachments.map { entry -> AppleJSON in
            let attachment = entry.element
            return typed(
                "ActionTestActivitySummary",
                [
                    .init("activityType", string("com.apple.dt.xctest.activity-type.attachmentContainer")),
                    .init("attachments", array([payload(attachment, index: entry.offset)])),
                    .init("start", date(attachment.timestamp)),
                    .init("title", string("Added attachment named '\(attachment.name)'")),
                ])
        }
        var members: [AppleJSON.Member] = [
            .init("activitySummaries", array(activities)),
            .init("duration", double(test.duration)),
            .init("identifier", string(test.identity.identifierString)),
            .init("identifierURL", string(url(record, test.target, test.suite, test.name))),
            .init("name", string(test.name + "()")),
            .init("testStatus", string(status(test.status))),
        ]
        if !failureSummaries.isEmpty { members.append(.init("failureSummaries", array(failureSummaries))) }
        return typed("ActionTestSummary", members, supertype: "ActionTestSummaryIdentifiableObject")
    }

    private static func payload(_ attachment: TestEvidence.Attachment, index: Int) -> AppleJSON {
        typed(
            "ActionTestAttachment",
            [
                .init("filename", string(attachment.suggestedHumanReadableName)),
                .init("lifetime", string(attachment.associatedWithFailure ? "keepAlways" : "deleteOnSuccess")),
                .init("name", string(attachment.name)),
                .init(
                    "payloadRef",
                    typed(
                        "Reference",
                        [.init("id", string(id(.payload(index: index))))])),
                .init("timestamp", date(attachment.timestamp)),
                .init("uniformTypeIdentifier", string(uniformType(attachment.fileName))),
            ])
    }

    /// The type identifier Xcode records for a file, by its extension.
    static func uniformType(_ fileName: String) -> String {
        switch (fileName as NSString).pathExtension.lowercased() {
        case "png": return "public.png"
        case "jpg", "jpeg": return "public.jpeg"
        case "txt", "log": return "public.plain-text"
        case "json": return "public.json"
        default: return "public.data"
        }
    }

    // MARK: - Wrappers

    private static func typed(_ name: String, _ members: [AppleJSON.Member], supertype: String? = nil) -> AppleJSON {
        var type: [AppleJSON.Member] = [.init("_name", .string(name))]
        if let supertype { type.append(.init("_supertype", .object([.init("_name", .string(supertype))]))) }
        return .object([.init("_type", .object(type))] + members)
    }

    private static func scalar(_ type: String, _ text: String) -> AppleJSON {
        .object([.init("_type", .object([.init("_name", .string(type))])), .init("_value", .string(text))])
    }

    private static func string(_ text: String) -> AppleJSON { scalar("String", text) }
    private static func int(_ value: Int) -> AppleJSON { scalar("Int", String(value)) }
    private static func double(_ value: Double) -> AppleJSON { scalar("Double", String(value)) }

    private static func array(_ values: [AppleJSON]) -> AppleJSON {
        .object([.init("_type", .object([.init("_name", .string("Array"))])), .init("_values", .array(values))])
    }

    /// `2024-06-01T20:06:44.973+0200`, the legacy `Date` text (written here in UTC).
    private static func date(_ unixTime: Double) -> AppleJSON {
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(identifier: "UTC")
        formatter.dateFormat = "yyyy-MM-dd'T'HH:mm:ss.SSSZ"
        return scalar("Date", formatter.string(from: Date(timeIntervalSince1970: unixTime)))
    }

    /// `file:///…/File.swift#EndingLineNumber=7&StartingLineNumber=7`, as a `DocumentLocation`.
    private static func location(file: String, line: Int?) -> AppleJSON {
        var url = URL(fileURLWithPath: file).absoluteString
        if let line { url += "#EndingLineNumber=\(line)&StartingLineNumber=\(line)" }
        return typed(
            "DocumentLocation",
            [.init("concreteTypeName", string("DVTTextDocumentLocation")), .init("url", string(url))])
    }

    private static func status(_ status: String) -> String {
        switch status {
        case "passed": return "Success"
        case "failed": return "Failure"
        default: return "Skipped"
        }
    }

    /// `test://com.apple.xcode/<Container>/<Target>/<Suite>/<test>`
    private static func url(_ record: ResultBundleRecord, _ parts: String...) -> String {
        (["test://com.apple.xcode", record.containerName] + parts).joined(separator: "/")
    }

    private static func ordered(_ values: [String]) -> [String] {
        var seen = Set<String>()
        return values.filter { seen.insert($0).inserted }
    }
}
