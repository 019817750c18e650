import Foundation

/// The JSON documents of `xcresulttool get test-results summary` and `… tests` (Xcode 16.3+ shapes,
/// apple-formats.md 5.2 and 5.3), built from the emulator's record of a run. Printed with sorted keys.
enum XCResultJSON {
    static func summary(_ record: ResultBundleRecord) -> AppleJSON {
        let counts = Counts(record.tests)
        var identifiers: [TestIdentity: Int] = [:]
        for (index, test) in record.tests.enumerated() where identifiers[test.identity] == nil {
            identifiers[test.identity] = index + 1
        }
        let failures: [AppleJSON] = record.tests.filter { $0.status == "failed" }.flatMap { test -> [AppleJSON] in
            let issues = test.failures.isEmpty ? [ResultBundleRecord.Issue(message: "failed")] : test.failures
            return issues.map { issue in
                .object([
                    .init("failureText", .string(issue.message)),
                    .init("targetName", .string(test.target)),
                    .init("testIdentifier", .int(identifiers[test.identity] ?? 0)),
                    .init("testIdentifierString", .string(test.identity.identifierString)),
                    .init("testIdentifierURL", .string(url(record, test.target, test.suite, test.name + "()"))),
                    .init("testName", .string(test.name + "()")),
                ])
            }
        }
        var devices: [AppleJSON] = []
        if counts.total > 0, let destination = record.destination {
            devices.append(
                .object([
                    .init("device", device(destination)),
                    .init("expectedFailures", .int(0)),
                    .init("failedTests", .int(counts.failed)),
                    .init("passedTests", .int(counts.passed)),
                    .init("skippedTests", .int(counts.skipped)),
                    .init("testPlanConfiguration", configuration),
                ]))
        }
        return .object([
            .init("devicesAndConfigurations", .array(devices)),
            .init(
                "environmentDescription", .string("\(record.containerName) · Built with macOS \(record.macOSVersion)")),
            .init("expectedFailures", .int(0)),
            .init("failedTests", .int(counts.failed)),
            .init("finishTime", .double(rounded(record.finishTime))),
            .init("passedTests", .int(counts.passed)),
            .init("result", .string(result(record, counts))),
            .init("skippedTests", .int(counts.skipped)),
            .init("startTime", .double(rounded(record.startTime))),
            .init("statistics", .array([])),
            .init("testFailures", .array(failures)),
            .init("title", .string("Test - \(record.scheme)")),
            .init("topInsights", .array([])),
            .init("totalTestCount", .int(counts.total)),
        ])
    }

    static func tests(_ record: ResultBundleRecord) -> AppleJSON {
        var plan: [AppleJSON.Member] = []
        let bundles = ordered(record.tests.map(\.target)).map { target -> AppleJSON in
            let inTarget = record.tests.filter { $0.target == target }
            let suites = ordered(inTarget.map(\.suite)).map { suite -> AppleJSON in
                let inSuite = inTarget.filter { $0.suite == suite }
                return .object([
                    .init("children", .array(inSuite.map { testCase($0, record: record) })),
                    .init("name", .string(suite)),
                    .init("nodeIdentifierURL", .string(url(record, target, suite))),
                    .init("nodeType", .string("Test Suite")),
                    .init("result", .string(result(Counts(inSuite)))),
                ])
            }
            return .object([
                .init("children", .array(suites)),
                .init("name", .string(target)),
                .init("nodeIdentifierURL", .string(url(record, target))),
                .init("nodeType", .string("Unit test bundle")),
                .init("result", .string(result(Counts(inTarget)))),
            ])
        }
        if !bundles.isEmpty { plan.append(.init("children", .array(bundles))) }
        plan += [
            .init("name", .string(record.scheme)),
            .init("nodeType", .string("Test Plan")),
            .init("result", .string(result(record, Counts(record.tests)))),
        ]
        return .object([
            .init("devices", .array(record.destination.map { [device($0)] } ?? [])),
            .init("testNodes", .array([.object(plan)])),
            .init("testPlanConfigurations", .array([configuration])),
        ])
    }

    private static func testCase(_ test: ResultBundleRecord.TestCase, record: ResultBundleRecord) -> AppleJSON {
        var messages = test.failures.map { message($0) }
        if let skip = test.skipReason {
            messages.append(message(.init(file: skip.file, line: skip.line, message: "Test skipped - \(skip.message)")))
        }
        var members: [AppleJSON.Member] = []
        if !messages.isEmpty { members.append(.init("children", .array(messages))) }
        members += [
            .init("duration", .string(humanDuration(test.duration))),
            .init("durationInSeconds", .double(rounded(test.duration))),
            .init("name", .string(test.name + "()")),
            .init("nodeIdentifier", .string(test.identity.identifierString)),
            .init("nodeIdentifierURL", .string(url(record, test.target, test.suite, test.name + "()"))),
            .init("nodeType", .string("Test Case")),
            .init("result", .string(result(Counts([test])))),
        ]
        return .object(members)
    }

    /// `ReadingIDTests.swift:21: XCTAssertEqual failed: …`
    private static func message(_ issue: ResultBundleRecord.Issue) -> AppleJSON {
        var name = issue.message
        if let file = issue.file {
            name = "\(URL(fileURLWithPath: file).lastPathComponent):\(issue.line ?? 0): \(issue.message)"
        }
        return .object([.init("name", .string(name)), .init("nodeType", .string("Failure Message"))])
    }

    private static let configuration = AppleJSON.object([
        .init("configurationId", .string("1")), .init("configurationName", .string("Test Scheme Action")),
    ])

    private static func device(_ destination: ResultBundleRecord.Destination) -> AppleJSON {
        .object([
            .init("architecture", .string(destination.architecture)),
            .init("deviceId", .string(destination.udid)),
            .init("deviceName", .string(destination.name)),
            .init("modelName", .string(destination.modelName)),
            .init("osBuildNumber", .string(destination.osBuild)),
            .init("osVersion", .string(destination.osVersion)),
            .init("platform", .string(destination.platform)),
        ])
    }

    /// `test://com.apple.xcode/<Container>/<Target>/<Suite>/<test>()`
    private static func url(_ record: ResultBundleRecord, _ parts: String...) -> String {
        (["test://com.apple.xcode", record.containerName] + parts).joined(separator: "/")
    }

    private static func result(_ record: ResultBundleRecord, _ counts: Counts) -> String {
        if !record.buildSucceeded || record.testRunError != nil { return "Failed" }
        return result(counts)
    }

    private static func result(_ counts: Counts) -> String {
        if counts.total == 0 { return "unknown" }
        if counts.failed > 0 { return "Failed" }
        if counts.passed == 0 { return "Skipped" }
        return "Passed"
    }

    /// Xcode's human-readable duration: two significant digits under a second (`0.0014s`, `0.11s`), whole
    /// seconds up to a minute (`22s`), then minutes (`1m 5s`).
    static func humanDuration(_ seconds: Double) -> String {
        if seconds <= 0 { return "0s" }
        if seconds < 1 {
            let digits = max(2, 1 - Int(floor(log10(seconds))))
            var text = String(format: "%.\(digits)f", seconds)
            while text.hasSuffix("0") { text.removeLast() }
            if text.hasSuffix(".") { text.removeLast() }
            return text + "s"
        }
        let whole = Int(seconds.rounded())
        if whole < 60 { return "\(whole)s" }
        return "\(whole / 60)m \(whole % 60)s"
    }

    private static func rounded(_ value: Double) -> Double {
        (value * 1000).rounded() / 1000
    }

    private static func ordered(_ values: [String]) -> [String] {
        var seen = Set<String>()
        return values.filter { seen.insert($0).inserted }
    }

    private struct Counts {
        var total = 0
        var passed = 0
        var failed = 0
        var skipped = 0

        init(_ tests: [ResultBundleRecord.TestCase]) {
            total = tests.count
            passed = tests.filter { $0.status == "passed" }.count
            failed = tests.filter { $0.status == "failed" }.count
            skipped = tests.filter { $0.status == "skipped" }.count
        }
    }
}
