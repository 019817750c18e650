import PipeCore

/// Decides a test layer's outcome from how xcodebuild ended, what its log said, and (optionally) the result
/// bundle's summary. The exit code decides pass or fail; the log and the summary say which kind of failure.
///
/// Rules, first match wins:
/// 1. Cancelled by the user → `cancelled`; the layer's own timeout → `timed-out` (with the test that was
///    running); both keep the failures seen as evidence. Connection lost or killed by a signal → `tests-failed`
///    when a test had already failed (the evidence says how the run ended), else `infrastructure`.
/// 2. Exit 0 with a `SUCCEEDED` banner of the requested action (the `Command line invocation:` line's, else `test`;
///    `CLEAN SUCCEEDED` or `BUILD SUCCEEDED` of a test run never counts), no failure banner of any action and no
///    test that stayed failed (by its line, `Failing tests:`, the bundle, or the log's `Executed …` totals) →
///    `passed`, unless the summary says no test ran at all (`result: unknown`, 0 tests), which is `host-config`: a
///    filter such as `-only-testing` matched nothing, and a gate must not pass on zero tests. Exit 0 without that
///    banner → `infrastructure` (silence is never success); exit 0 with a failure goes on to the rules below.
/// 3. `No space left on device` → `infrastructure`.
/// 4. Host setup texts → `host-config`: a scheme missing or not shared (65), a scheme without a test action (66),
///    no matching destination (70), an existing result bundle path (64), a missing project or workspace, no Xcode
///    (Command Line Tools only), an unaccepted Xcode license, xcodebuild not found (127). Waiting for
///    destinations timed out → `infrastructure` (a simulator that does not come up).
/// 5. Package resolution (74): an unsatisfiable dependency graph is the repository's fault → `build-failed`;
///    network trouble → `infrastructure`; anything else (credentials, a registry the host cannot reach) →
///    `host-config`.
/// 5b. A code-signing or provisioning error (`SigningFailure`: no development team, no profile, no certificate, a
///    profile without the certificate, …) → `host-config` with what to fix: the project's signing settings or
///    the host's keychain, never a failing app.
/// 5c. A package macro or plugin the host has not trusted (`Macro “M” … must be enabled before it can be used`)
///    → `host-config`, with the xcodebuild flag that skips the check.
/// 6. `Testing cancelled because the build failed.`, failed build commands (other than xcodebuild's own
///    `Testing project … with scheme …` entry), or a `BUILD FAILED` banner → `build-failed`.
/// 7. A test-runner or simulator failure (`TestRunnerFailure`: "Early unexpected exit, operation never finished
///    bootstrapping", "Test runner failed to initialize for UI testing", "Failed to background test runner", …)
///    with no failure of the app → `infrastructure`, the line as evidence; `retry.infrastructure` retries it on
///    another simulator. With real assertion failures, or a crash inside a started test ("Restarting after
///    unexpected exit, crash, or test timeout in X") → `tests-failed`, the runner line kept as extra evidence.
///    Named failing tests (log or summary), a test over XCTest's execution time allowance, or a test process
///    that crashed and was restarted → `tests-failed`.
/// 8. `TEST FAILED` with no failed test but a `Testing failed:` runner error: a crash of the test process
///    (`Crash:`) is the app's failure → `tests-failed`; a runner that could not start (simulator boot, install,
///    launch, lost connection) → `infrastructure`.
/// 9. `TEST FAILED` / `TEST EXECUTE FAILED` with exit 65 and nothing more specific → `tests-failed` (xcodebuild
///    itself says the tests failed); an `INTERRUPTED` banner → `infrastructure`.
/// 10. Another `xcodebuild: error:` → `plugin-error` for exit 64 (Pipe built a command xcodebuild refused),
///     `host-config` otherwise; an exit of 128 or more, or no banner at all → `infrastructure` (killed or crashed).
public enum XcodebuildOutcomeClassifier {
    /// The outcome and its evidence; `summary` is the bundle's `get test-results summary`, when it could be read.
    public static func classify(
        exit: RemoteExit, log: XcodebuildLogFacts, summary: XcresultSummary? = nil
    ) -> XcodebuildVerdict {
        var evidence = Evidence(log: log, summary: summary)
        switch exit {
        case .cancelled:
            evidence.addFailuresSeen()
            return evidence.verdict(.cancelled, "cancelled; the remote process group was killed")
        case .timedOut:
            if let test = log.lastStartedTest { evidence.add("the last test that started: \(test)") }
            evidence.addFailuresSeen()
            return evidence.verdict(.timedOut, "the layer's timeout ran out; the remote process group was killed")
        case .lost(let reason):
            let ended = "the connection was lost before xcodebuild ended: \(reason)"
            if log.hasAppFailures { return evidence.testsFailedBeforeTheEnd(ended) }
            return evidence.verdict(.infrastructure, ended)
        case .signaled(let signal):
            let ended = "xcodebuild was killed by signal \(signal)"
            if log.hasAppFailures { return evidence.testsFailedBeforeTheEnd(ended) }
            evidence.addBanner()
            return evidence.verdict(.infrastructure, ended)
        case .exited(let code):
            return classify(code: code, log: log, summary: summary, evidence: &evidence)
        }
    }

    private static func classify(
        code: Int32, log: XcodebuildLogFacts, summary: XcresultSummary?, evidence: inout Evidence
    ) -> XcodebuildVerdict {
        evidence.add("exit \(code)")
        let failedTests = log.hasFailedTests || (summary?.failedTests ?? 0) > 0
        if code == 0, !failedTests, log.failureBanner == nil {
            guard let banner = log.successBanner else {
                evidence.addBanner()
                return evidence.verdict(
                    .infrastructure,
                    "xcodebuild exited 0 without a SUCCEEDED banner of the \(log.requestedAction.name ?? "test") "
                        + "action: the log is incomplete")
            }
            evidence.add(banner.line)
            if let summary, summary.totalTestCount == 0, summary.result == .unknown {
                return evidence.verdict(
                    .hostConfig,
                    "the result bundle says no test ran (result unknown, 0 tests): check -only-testing and the "
                        + "scheme's test plan")
            }
            evidence.addCounts()
            return evidence.verdict(.passed)
        }

        if let line = log.diskFullLines.first {
            return evidence.verdict(.infrastructure, "the host's disk is full: \(line)")
        }
        if let verdict = hostSetupVerdict(code: code, log: log, evidence: &evidence) { return verdict }
        if let verdict = packageResolutionVerdict(log: log, evidence: &evidence) { return verdict }
        if let line = log.signingErrorLines.first, let fix = SigningFailure.fix(for: line) {
            for other in log.signingErrorLines.items.dropFirst().prefix(2) { evidence.add(other) }
            evidence.addBanner()
            return evidence.verdict(.hostConfig, "code signing is not set up: \(line); to fix: \(fix)")
        }

        if let verdict = untrustedPackageExtensionVerdict(log: log, evidence: &evidence) { return verdict }

        let realBuildCommands = log.buildCommandsFailed.items.filter { !isSummaryBuildCommand($0) }
        let bannerSaysBuildFailed = log.banners.items.contains { $0.result == .failed && $0.action.contains("BUILD") }
        if log.testingCancelledBecauseBuildFailed || !realBuildCommands.isEmpty || bannerSaysBuildFailed {
            evidence.addBanner()
            if log.testingCancelledBecauseBuildFailed { evidence.add("Testing cancelled because the build failed.") }
            for line in log.compilerErrors.items.prefix(3) { evidence.add(line) }
            for line in realBuildCommands.prefix(3) { evidence.add("build command failed: \(line)") }
            return evidence.verdict(.buildFailed)
        }

        let runnerLines = log.testRunnerFailureLines.items
        if let runnerLine = runnerLines.first, !log.hasAppFailures, appFailures(in: summary) == 0,
            log.restartLines.isEmpty, log.executionTimeAllowanceLines.isEmpty
        {
            evidence.addBanner()
            for line in runnerLines.dropFirst().prefix(2) { evidence.add(Self.cut(line)) }
            evidence.addFailures()
            var verdict = evidence.verdict(
                .infrastructure, "the test runner failed, not the app under test: \(Self.cut(runnerLine))")
            verdict.testRunnerFailure = TestRunnerFailure.text(in: runnerLine)
            return verdict
        }
        if failedTests || log.failedCount > 0 || !log.executionTimeAllowanceLines.isEmpty
            || !log.restartLines.isEmpty
        {
            evidence.addBanner()
            if code >= 128 { evidence.add("exit \(code): xcodebuild was killed by signal \(code - 128)") }
            if log.banner == nil { evidence.add("the run ended without a banner (killed, or cut short)") }
            evidence.addFailures()
            for line in runnerLines.prefix(2) { evidence.add("also a test-runner failure: \(Self.cut(line))") }
            return evidence.verdict(.testsFailed)
        }

        if let banner = log.failureBanner, !log.testingFailedLines.isEmpty {
            evidence.add(banner.line)
            let lines = log.testingFailedLines.items
            if let infrastructureLine = lines.first(where: isRunnerInfrastructureFailure) {
                return evidence.verdict(.infrastructure, "Testing failed: \(infrastructureLine)")
            }
            for line in lines.prefix(3) { evidence.add("Testing failed: \(line)") }
            return evidence.verdict(.testsFailed)
        }
        if let banner = log.failureBanner ?? log.banner {
            evidence.add(banner.line)
            if banner.result == .interrupted { return evidence.verdict(.infrastructure, "xcodebuild was interrupted") }
            if banner.result == .failed, code == 65, banner.action.hasPrefix("TEST") {
                return evidence.verdict(
                    .testsFailed, "xcodebuild reports the tests failed without naming one; see the log and bundle")
            }
        }
        if let line = log.toolErrors.first {
            evidence.add(line)
            return evidence.verdict(code == 64 ? .pluginError : .hostConfig)
        }
        if code >= 128 {
            return evidence.verdict(.infrastructure, "exit \(code) means xcodebuild was killed by signal \(code - 128)")
        }
        return evidence.verdict(
            .infrastructure,
            log.banner == nil
                ? "xcodebuild ended without a banner: it was killed or crashed"
                : "xcodebuild failed without naming a cause; see the log")
    }

    /// A log that ended without a banner and whose exit code is not known (`pipe report` without `--exit-code`):
    /// `tests-failed` when a test had failed before it ended, `infrastructure` for a test-runner failure,
    /// `host-config` for a signing error, `build-failed` for compiler errors or a failed build step before any test,
    /// `passed` for a `swift test` log (no xcodebuild invocation) whose test runs all ended with no failure, else
    /// `nil` (the run ended without a verdict).
    public static func classifyEndedWithoutVerdict(log: XcodebuildLogFacts, summary: XcresultSummary? = nil)
        -> XcodebuildVerdict?
    {
        var evidence = Evidence(log: log, summary: summary)
        let ended = "the log ended without a banner and no exit code is known (killed, or cut short)"
        // `swift test` prints no banner: XCTest's outermost `Executed …` and Swift Testing's `Test run with …` are
        // its verdict, once every run it started has ended.
        let swiftTestEnded =
            log.invokedActions.isEmpty && log.banners.isEmpty && !log.sawXcodebuildOutput && log.testRunsEnded
        let totals = log.statedTotals.items.suffix(2).map(\.line) + (log.swiftTestingRunEnd.map { [$0] } ?? [])
        if swiftTestEnded, log.hasAppFailures {
            evidence.addFailures()
            for line in totals { evidence.add(line) }
            return evidence.verdict(
                .testsFailed,
                "no xcodebuild invocation or banner (`swift test`): the test tools' own totals end the run")
        }
        if log.hasAppFailures || appFailures(in: summary) > 0 { return evidence.testsFailedBeforeTheEnd(ended) }
        if let line = log.testRunnerFailureLines.first {
            evidence.add(ended)
            var verdict = evidence.verdict(
                .infrastructure, "the test runner failed, not the app under test: \(cut(line))")
            verdict.testRunnerFailure = TestRunnerFailure.text(in: line)
            return verdict
        }
        if let line = log.signingErrorLines.first, let fix = SigningFailure.fix(for: line) {
            evidence.add(ended)
            return evidence.verdict(.hostConfig, "code signing is not set up: \(line); to fix: \(fix)")
        }
        if let verdict = untrustedPackageExtensionVerdict(log: log, evidence: &evidence, ended: ended) {
            return verdict
        }
        let noTestRan = log.passedCount + log.failedCount == 0
        if !log.compilerErrors.isEmpty, noTestRan {
            for line in log.compilerErrors.items.prefix(3) { evidence.add(line) }
            evidence.add(ended)
            return evidence.verdict(.buildFailed, "the compiler reported errors before any test ran")
        }
        if let step = log.failedBuildSteps.first, noTestRan {
            evidence.add(ended)
            return evidence.verdict(.buildFailed, "a build step failed before any test ran: \(step)")
        }
        if swiftTestEnded {
            for line in totals { evidence.add(line) }
            evidence.addCounts()
            return evidence.verdict(
                .passed, "no xcodebuild invocation or banner (`swift test`): the test tools' own totals end the run")
        }
        return nil
    }

    /// Failures the bundle names that are not the test runner's own (all of them when it names none).
    private static func appFailures(in summary: XcresultSummary?) -> Int {
        guard let summary, summary.failedTests > 0 else { return 0 }
        guard !summary.testFailures.isEmpty else { return summary.failedTests }
        return summary.testFailures.filter { !TestRunnerFailure.matches($0.failureText) }.count
    }

    /// A runner line as evidence: they carry whole `UserInfo` dumps.
    private static func cut(_ line: String) -> String {
        line.count > 300 ? String(line.prefix(300)) + "…" : line
    }

    /// Step 4: texts that mean the host (or the pipeline's view of it) is not set up for this request.
    private static func hostSetupVerdict(
        code: Int32, log: XcodebuildLogFacts, evidence: inout Evidence
    ) -> XcodebuildVerdict? {
        let lines = log.toolErrors.items + log.testingFailedLines.items
        let hostConfigTexts: [(String, String)] = [
            ("does not contain a scheme named", "the scheme is missing or not shared (Manage Schemes > Shared)"),
            ("is not currently configured for the test action", "the scheme has no test action"),
            ("Unable to find a destination matching", "no destination matches the chosen simulator"),
            ("Unable to find a device matching", "no destination matches the chosen simulator"),
            ("Existing file at -resultBundlePath", "the result bundle path already exists"),
            ("requires Xcode, but active developer directory", "the host has only the Command Line Tools selected"),
            ("You have not agreed to the Xcode", "the Xcode license is not accepted on the host"),
        ]
        for line in lines {
            if line.contains("Timed out waiting for all destinations") {
                evidence.add(line)
                return evidence.verdict(.infrastructure, "the simulator did not become available in time")
            }
            if let match = hostConfigTexts.first(where: { line.contains($0.0) }) {
                evidence.add(line)
                return evidence.verdict(.hostConfig, match.1)
            }
            if line.hasPrefix("xcodebuild: error: '"), line.hasSuffix("' does not exist.") {
                evidence.add(line)
                return evidence.verdict(.hostConfig, "the project or workspace is not in the uploaded workspace")
            }
        }
        if code == 127 || code == 126 {
            return evidence.verdict(
                .hostConfig, "the shell could not run xcodebuild (exit \(code)): is Xcode installed?")
        }
        return nil
    }

    /// Step 5: `xcodebuild: error: Could not resolve package dependencies:` and its indented cause.
    private static func packageResolutionVerdict(log: XcodebuildLogFacts, evidence: inout Evidence)
        -> XcodebuildVerdict?
    {
        guard let line = log.toolErrors.items.first(where: { $0.contains("Could not resolve package dependencies") })
        else { return nil }
        evidence.add(line)
        let causes = log.toolErrorDetails.items
        for cause in causes.prefix(2) { evidence.add(cause) }
        let text = causes.joined(separator: "\n")
        let graphConflict = ["Dependencies could not be resolved because", "no versions of", "is forbidden"]
        let network = [
            "Could not resolve host", "timed out", "The Internet connection appears to be offline",
            "Connection refused", "Network is unreachable", "SSL",
        ]
        if graphConflict.contains(where: text.contains) {
            return evidence.verdict(.buildFailed, "the repository's package requirements cannot be satisfied")
        }
        if network.contains(where: text.contains) {
            return evidence.verdict(.infrastructure, "the host could not reach a package repository")
        }
        return evidence.verdict(
            .hostConfig, "packages could not be resolved on this host (credentials, mirrors or a registry)")
    }

    /// Step 5c: a package's macro or build-tool plugin the host has not trusted. Xcode asks a person once per
    /// machine; a CI host passes `-skipMacroValidation` / `-skipPackagePluginValidation`. Not the app's failure.
    private static func untrustedPackageExtensionVerdict(
        log: XcodebuildLogFacts, evidence: inout Evidence, ended: String? = nil
    ) -> XcodebuildVerdict? {
        guard let line = log.untrustedPackageExtensionLines.first else { return nil }
        for other in log.untrustedPackageExtensionLines.items.dropFirst().prefix(2) { evidence.add(other) }
        if let ended { evidence.add(ended) } else { evidence.addBanner() }
        let flag = line.hasPrefix("Macro") ? "-skipMacroValidation" : "-skipPackagePluginValidation"
        return evidence.verdict(
            .hostConfig,
            "the host has not trusted a package's macro or plugin: \(line); to fix: pass \(flag) to xcodebuild, or "
                + "trust it once in Xcode on the host")
    }

    /// Xcode 16.4+ ends `The following build commands failed:` with `Testing project X with scheme Y`; that entry
    /// alone does not prove a build failure.
    private static func isSummaryBuildCommand(_ line: String) -> Bool {
        ["Testing project ", "Testing workspace ", "Building project ", "Building workspace "]
            .contains(where: line.hasPrefix)
    }

    private static func isRunnerInfrastructureFailure(_ line: String) -> Bool {
        let lowered = line.lowercased()
        if lowered.contains("crash") { return false }
        return [
            "unable to boot", "failed to boot", "failed to install", "failed to launch", "lost connection to",
            "never began executing tests", "test runner exited", "timed out while loading",
        ].contains(where: lowered.contains)
    }
}

/// Collects evidence lines without repeats, capped, for `XcodebuildOutcomeClassifier`.
private struct Evidence {
    let log: XcodebuildLogFacts
    let summary: XcresultSummary?
    private var lines: [String] = []
    private let limit = 12

    init(log: XcodebuildLogFacts, summary: XcresultSummary?) {
        self.log = log
        self.summary = summary
    }

    mutating func add(_ line: String) {
        guard lines.count < limit, !lines.contains(line) else { return }
        lines.append(line)
    }

    mutating func addBanner() {
        add(log.failureBanner?.line ?? log.banner?.line ?? "no ** … ** banner in the log")
    }

    mutating func addCounts() {
        var text = "\(log.passedCount) passed, \(log.failedCount) failed, \(log.skippedCount) skipped in the log"
        if let summary {
            text +=
                "; bundle: \(summary.passedTests) passed, \(summary.failedTests) failed of \(summary.totalTestCount)"
        }
        add(text)
    }

    /// Failures seen before a run was cancelled or timed out: evidence, not the verdict.
    mutating func addFailuresSeen() {
        guard log.hasFailedTests else { return }
        add("\(log.stillFailingCount) test(s) had failed before the run was stopped")
        addFailures()
    }

    /// A test that failed an assertion failed the app, however the run ended afterwards.
    mutating func testsFailedBeforeTheEnd(_ ended: String) -> XcodebuildVerdict {
        addFailures()
        add("then \(ended)")
        return verdict(.testsFailed, "tests failed before the run ended without a verdict")
    }

    mutating func addFailures() {
        let listed = log.failingTestsListed.items
        if !listed.isEmpty {
            let more = log.failingTestsListed.totalCount - min(listed.count, 5)
            add("Failing tests: " + listed.prefix(5).joined(separator: ", ") + (more > 0 ? " (+\(more) more)" : ""))
        }
        for failure in log.failedTests.items.prefix(3) {
            var line = "\(log.listedName(of: failure.identifier) ?? failure.identifier) failed"
            if let location = failure.failureLocation { line += " at \(location)" }
            if let message = failure.failureMessage { line += ": \(message)" }
            add(line)
        }
        for failure in (summary?.testFailures ?? []).prefix(3) {
            let allowance =
                failure.exceededExecutionTimeAllowance ? " (over XCTest's time allowance: a test failure)" : ""
            add("bundle: \(failure.testIdentifierString ?? failure.testName): \(failure.failureText)\(allowance)")
        }
        for line in log.executionTimeAllowanceLines.items.prefix(2) {
            add("over XCTest's execution time allowance (a test failure): \(line)")
        }
        for line in log.restartLines.items.prefix(2) { add(line) }
    }

    /// The verdict; where the log's own totals disagree with what was counted, the last line says so.
    func verdict(_ outcome: LayerOutcome, _ reason: String? = nil) -> XcodebuildVerdict {
        XcodebuildVerdict(
            outcome: outcome,
            evidence: (reason.map { [$0] } ?? []) + lines + (log.totalsDisagreement.map { [$0] } ?? []))
    }
}
