import Foundation

/// Canned mode: replays a scheme's entry from `pipe-canned-results.json`; nothing compiles, durations are slept.
struct CannedTestRunner: TestRunner {
    let scheme: CannedResults.Scheme
    let workspace: TestWorkspace
    let architecture: String
    let output: EmulatorOutput
    /// xcodebuild's environment: `TEST_RUNNER_<NAME>` is what the test process sees as `<NAME>`.
    var environment: [String: String] = [:]
    /// `-retry-tests-on-failure -test-iterations N`: a failing test runs again at once, up to N runs in all, and its
    /// last run is its result. (Assumed: Xcode reruns a failed test right after it, and XCTest's "Executed" lines
    /// count every run, as they count every test run of a suite.)
    var runsOfAFailingTest = 1

    var testTargets: [String] { orderedUnique(scheme.tests.map(\.target)) }

    func build() throws -> BuildOutcome {
        let targets = testTargets
        let project = workspace.containerName
        output.line("Prepare packages")
        output.line()
        output.line("ComputeTargetDependencyGraph")
        output.line("note: Building targets in dependency order")
        output.line("note: Target dependency graph (\(targets.count) target\(targets.count == 1 ? "" : "s"))")
        for target in targets { output.line("    Target '\(target)' in project '\(project)' (no dependencies)") }
        output.line()
        for target in targets {
            let suites = orderedUnique(scheme.tests.filter { $0.target == target }.map(\.suite))
            for suite in suites {
                let file = workspace.absolute("Tests/\(target)/\(suite).swift")
                output.line(
                    BuildLogLine.compile(file: file, target: target, project: project, architecture: architecture))
                output.line()
            }
        }
        Thread.sleep(forTimeInterval: max(0, scheme.buildSeconds ?? 0.2))
        let errors = (scheme.buildErrors ?? []).map { error in
            ResultBundleRecord.BuildIssue(
                file: error.file.map(workspace.absolute), line: error.line, column: error.column,
                message: error.message)
        }
        guard errors.isEmpty else {
            for error in errors {
                let location = "\(error.file ?? "<unknown>"):\(error.line ?? 0):\(error.column ?? 0)"
                output.line("\(location): error: \(error.message)")
            }
            output.line()
            return BuildOutcome(
                succeeded: false, errors: errors,
                failedCommands: BuildLogLine.failedCommands(
                    for: errors, workspace: workspace, architecture: architecture))
        }
        for target in targets {
            output.line(
                "Ld \(workspace.root.path)/.build/Debug-iphonesimulator/\(target).xctest/\(target) normal "
                    + "(in target '\(target)' from project '\(project)')")
            output.line()
        }
        return BuildOutcome(succeeded: true)
    }

    func runTests(selection: TestSelection, reporter: XCTestReporter) throws -> TestRunProblem? {
        let selected = scheme.tests.filter { selection.includes($0.identity) }
        let runStart = Date()
        let top = selection.isFiltered ? "Selected tests" : "All tests"
        reporter.suiteStarted(top, timestamp: XCTestReporter.timestamp())
        var totals = Tally()
        for target in orderedUnique(selected.map(\.target)) {
            let bundleStart = Date()
            let bundle = "\(target).xctest"
            reporter.suiteStarted(bundle, timestamp: XCTestReporter.timestamp())
            var bundleTally = Tally()
            let inTarget = selected.filter { $0.target == target }
            for suite in orderedUnique(inTarget.map(\.suite)) {
                let suiteStart = Date()
                reporter.suiteStarted(suite, timestamp: XCTestReporter.timestamp())
                var suiteTally = Tally()
                for test in inTarget where test.suite == suite {
                    var last = replay(test, reporter: reporter)
                    suiteTally.add(last)
                    var runs = 1
                    while last.status == .failed, runs < runsOfAFailingTest, !reporter.stopRequested {
                        last = replay(test, reporter: reporter)
                        suiteTally.add(last)
                        runs += 1
                    }
                    if reporter.stopRequested { return nil }
                }
                finish(suite, tally: suiteTally, since: suiteStart, reporter: reporter)
                bundleTally.merge(suiteTally)
            }
            finish(bundle, tally: bundleTally, since: bundleStart, reporter: reporter)
            totals.merge(bundleTally)
        }
        finish(top, tally: totals, since: runStart, reporter: reporter)
        return nil
    }

    func evidence(codeCoverage: Bool, tests: [ResultBundleRecord.TestCase]) -> TestEvidence {
        let coverage = scheme.coverage.map { targets in
            targets.map { target in
                TestEvidence.CoverageTarget(
                    name: target.name,
                    files: target.files.map { file in
                        var file = file
                        file.path = workspace.absolute(file.path)
                        return file
                    })
            }
        }
        var sources: [TestEvidence.Source] = []
        for test in tests {
            guard let canned = scheme.tests.first(where: { $0.identity == test.identity }) else { continue }
            for attachment in canned.attachments ?? [] {
                sources.append(
                    TestEvidence.Source(
                        test: test.identity, name: attachment.name,
                        file: URL(fileURLWithPath: workspace.absolute(attachment.file)),
                        associatedWithFailure: attachment.associatedWithFailure ?? (test.status == "failed")))
            }
        }
        return TestEvidence(coverage: codeCoverage ? coverage : nil, attachments: sources)
    }

    private func replay(_ canned: CannedResults.Test, reporter: XCTestReporter) -> CannedResults.Test {
        var test = canned
        if let failures = test.failuresBeforePass, failures > 0 {
            let previous = FlakyTestCounter.next(for: test.identity, in: workspace.root)
            if previous < failures {
                test.status = .failed
                test.message = test.message ?? "flaky failure \(previous + 1) of \(failures)"
            }
        }
        // `{{env:NAME}}` in a message stands for what the test process would see as NAME: a test that prints a
        // value it was given (how a secret could reach a log).
        test.message = test.message.map(expandEnvironment)
        reporter.caseStarted(test.identity)
        let duration = max(0, test.duration ?? 0)
        Thread.sleep(forTimeInterval: duration)
        let file = test.file.map(workspace.absolute)
        switch test.status {
        case .passed: break
        case .failed: reporter.caseFailure(file: file, line: test.line, message: test.message ?? "failed")
        case .skipped: reporter.caseSkipNotice(file: file, line: test.line, reason: test.message ?? "")
        }
        reporter.caseFinished(status: test.status.rawValue, duration: duration)
        return test
    }

    private func expandEnvironment(_ text: String) -> String {
        var result = text
        while let open = result.range(of: "{{env:"),
            let close = result.range(of: "}}", range: open.upperBound..<result.endIndex)
        {
            let name = String(result[open.upperBound..<close.lowerBound])
            result.replaceSubrange(open.lowerBound..<close.upperBound, with: environment["TEST_RUNNER_\(name)"] ?? "")
        }
        return result
    }

    private func finish(_ suite: String, tally: Tally, since start: Date, reporter: XCTestReporter) {
        reporter.suiteFinished(suite, passed: tally.failures == 0, timestamp: XCTestReporter.timestamp())
        reporter.executed(
            total: tally.total, skipped: tally.skipped, failures: tally.failures, unexpected: 0,
            testSeconds: tally.seconds, wallSeconds: Date().timeIntervalSince(start))
    }

    private func orderedUnique(_ values: [String]) -> [String] {
        var seen = Set<String>()
        return values.filter { seen.insert($0).inserted }
    }

    /// Counts for one "Executed …" line.
    private struct Tally {
        var total = 0
        var skipped = 0
        var failures = 0
        var seconds = 0.0

        mutating func add(_ test: CannedResults.Test) {
            total += 1
            if test.status == .skipped { skipped += 1 }
            if test.status == .failed { failures += 1 }
            seconds += max(0, test.duration ?? 0)
        }

        mutating func merge(_ other: Tally) {
            total += other.total
            skipped += other.skipped
            failures += other.failures
            seconds += other.seconds
        }
    }
}
