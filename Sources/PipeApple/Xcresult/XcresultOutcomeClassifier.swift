import PipeCore

/// Decides a test layer's outcome from a result bundle alone (`xcresulttool` output copied off a Mac, no log), and
/// the exit code when it is known. Used by `pipe report`; with a log, `XcodebuildOutcomeClassifier` decides.
///
/// Rules, first match wins:
/// 1. An issue that says the host is not set up (no matching destination, a missing or non-shared scheme, a scheme
///    without a test action) → `host-config`: never a test failure, even though the legacy record files a missing
///    destination under test failures.
/// 2. The build failed (legacy `buildResult.status` `failed`, or build errors with no tests run) → `build-failed`.
/// 3. A failed test (summary counts, test cases, failure summaries) → `tests-failed`.
/// 4. An exit of 128 or more → `infrastructure` (killed); 64, 66, 70 → `host-config` (xcodebuild's codes for a
///    refused command line, a scheme without a test action, no destination).
/// 5. No test ran (`result: unknown`, 0 tests) → `host-config` (a filter matched nothing); a gate never passes on
///    zero tests.
/// 6. Exit 0, or no exit code and a bundle that says its tests passed → `passed`.
/// 7. Otherwise → `infrastructure`: a failing exit the bundle does not explain, or a bundle with no verdict.
public enum XcresultOutcomeClassifier {
    /// - Parameters:
    ///   - exitCode: xcodebuild's exit code, when known.
    ///   - summary: `get test-results summary` (or one derived from the tests tree); without one, the legacy
    ///     record's counts and failures are used.
    ///   - tests: the bundle's test cases, when known.
    ///   - legacy: the legacy root record, when given: its build status and issues.
    public static func classify(
        exitCode: Int32?, summary: XcresultSummary?, tests: [TestCaseResult],
        legacy: XcresultLegacyInvocationRecord? = nil
    ) -> XcodebuildVerdict {
        let summary = summary ?? legacy.map(XcresultSummary.init(legacy:))
        var evidence: [String] = []
        evidence.append(exitCode.map { "exit \($0)" } ?? "no exit code given (--exit-code)")
        if let summary {
            evidence.append(
                "bundle: result \(summary.result), \(summary.passedTests) passed, \(summary.failedTests) failed, "
                    + "\(summary.skippedTests) skipped of \(summary.totalTestCount)")
        }
        let actions = legacy?.actions ?? []
        let issues = actions.flatMap { $0.testFailures + $0.actionErrors + $0.buildErrors }
        for issue in issues {
            if let match = hostSetupTexts.first(where: { issue.message.contains($0.text) }) {
                return verdict(.hostConfig, match.reason, evidence + [firstLine(issue.message)])
            }
        }

        let buildErrors = actions.flatMap(\.buildErrors)
        let testsRan = (summary?.totalTestCount ?? 0) > 0 || !tests.isEmpty
        if actions.contains(where: { $0.buildStatus == "failed" }) || (!buildErrors.isEmpty && !testsRan) {
            let lines = buildErrors.prefix(3).map { issue in
                "build error" + (issue.location.map { " at \($0)" } ?? "") + ": " + firstLine(issue.message)
            }
            return verdict(.buildFailed, "the bundle records a failed build", evidence + lines)
        }

        let failedTests = tests.filter { $0.status == .failed }
        if (summary?.failedTests ?? 0) > 0 || !failedTests.isEmpty {
            var lines = failedTests.prefix(3).map { test in
                "\(test.identifier) failed" + (test.failureLocation.map { " at \($0)" } ?? "")
                    + (test.failureMessage.map { ": \(firstLine($0))" } ?? "")
            }
            if lines.isEmpty {
                lines = (summary?.testFailures ?? []).prefix(3).map {
                    "\($0.testIdentifierString ?? $0.testName): \(firstLine($0.failureText))"
                }
            }
            return verdict(.testsFailed, nil, evidence + lines)
        }

        if let code = exitCode {
            if code >= 128 {
                return verdict(
                    .infrastructure, "exit \(code) means xcodebuild was killed by signal \(code - 128)", evidence)
            }
            if let reason = hostConfigExitCodes[code] { return verdict(.hostConfig, reason, evidence) }
        }
        if let summary, summary.totalTestCount == 0, summary.result == .unknown {
            return verdict(
                .hostConfig,
                "the result bundle says no test ran (result unknown, 0 tests): check -only-testing and the scheme's "
                    + "test plan", evidence)
        }
        let bundlePassed =
            summary.map { $0.result == .passed || ($0.failedTests == 0 && $0.totalTestCount > 0) }
            ?? (!tests.isEmpty && failedTests.isEmpty)
        switch exitCode {
        case 0?:
            return verdict(.passed, nil, evidence)
        case nil where bundlePassed:
            return verdict(.passed, nil, evidence)
        case let code?:
            return verdict(
                .infrastructure,
                "xcodebuild exited \(code) but the result bundle names no failure: give the log to see why", evidence)
        case nil:
            return verdict(.infrastructure, "the result bundle holds no verdict and no exit code was given", evidence)
        }
    }

    private static let hostSetupTexts: [(text: String, reason: String)] = [
        ("Unable to find a destination matching", "no destination matches the chosen simulator"),
        ("Unable to find a device matching", "no destination matches the chosen simulator"),
        ("does not contain a scheme named", "the scheme is missing or not shared (Manage Schemes > Shared)"),
        ("is not currently configured for the test action", "the scheme has no test action"),
    ]

    private static let hostConfigExitCodes: [Int32: String] = [
        64: "exit 64: xcodebuild refused the command line (an existing result bundle path, an unknown option)",
        66: "exit 66: the scheme has no test action, or the project does not exist",
        70: "exit 70: no destination matches the chosen simulator",
    ]

    private static func verdict(_ outcome: LayerOutcome, _ reason: String?, _ evidence: [String]) -> XcodebuildVerdict {
        var lines: [String] = []
        for line in (reason.map { [$0] } ?? []) + evidence where !lines.contains(line) && lines.count < 12 {
            lines.append(line)
        }
        return XcodebuildVerdict(outcome: outcome, evidence: lines)
    }

    /// Legacy messages span lines (a destination error lists every destination): evidence quotes the first.
    private static func firstLine(_ text: String) -> String {
        ToolOutput.firstLine(text)
    }
}
