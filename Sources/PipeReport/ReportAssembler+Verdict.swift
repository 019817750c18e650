import Foundation
import PipeApple
import PipeBasics
import PipeCore

/// The verdict of what was read: the tests, their outcome and its evidence.
extension ReportAssembler {
    /// Classifies what was read and builds the record; `nil` when nothing at all could be read.
    public func finish() -> ReportResult? {
        if legacyRecord == nil, legacyTests == nil {
            for source in loneTestSummaries {
                problems.append(
                    InputProblem(
                        source: source, position: nil,
                        message:
                            "this is a legacy ActionTestSummary (one test's details, fetched with `xcrun xcresulttool "
                            + "get --legacy --format json --path X.xcresult --id <summaryRef id>`), not a whole result",
                        consequence:
                            "give the root record first: --legacy-json root.json (the same command without --id), "
                            + "then this file"))
            }
        }
        guard readSomething else { return nil }
        let (tests, earlierRuns, alreadyShown, complete) = finalTests()
        for test in tests.dropFirst(alreadyShown) { events.emit(.testFinished(layer: options.layer, result: test)) }
        let bundleSummary =
            summary ?? testResults.map(XcresultSummary.init(tests:)) ?? legacyRecord.map(XcresultSummary.init(legacy:))
        var verdict = classify(summary: bundleSummary, tests: tests)
        if let line = repeatedNamesLine(listed: tests.count) { verdict.evidence.append(line) }
        if complete, let line = bundleCountsLine(summary: bundleSummary, tests: tests) { verdict.evidence.append(line) }
        let flaky = tests.filter { test in
            test.status == .passed && earlierRuns.contains { $0.identifier == test.identifier && $0.status == .failed }
        }
        if !flaky.isEmpty {
            let names = flaky.prefix(3).map(\.identifier).joined(separator: ", ")
            let more = flaky.count > 3 ? " (+\(flaky.count - 3) more)" : ""
            let line = "\(flaky.count) test\(flaky.count == 1 ? "" : "s") failed and then passed: \(names)\(more)"
            if verdict.outcome == .passed {
                verdict = XcodebuildVerdict(outcome: .flaky, evidence: [line] + verdict.evidence)
            } else {
                verdict.evidence.append(line)
            }
        }
        if verdict.outcome == .passed || verdict.outcome == .flaky, let partial = decidingInputProblem {
            verdict = XcodebuildVerdict(
                outcome: .infrastructure,
                evidence: [
                    "\(partial.source) could not be read in full: a pass cannot be judged from part of the input"
                ]
                    + verdict.evidence)
        }
        for problem in problems {
            verdict.evidence.append("input: \(problem)")
            if options.warnInEvents { events.emit(.warning("\(problem)")) }
        }

        let exit = PipeExitCode.mergeVerdict(outcomes: [verdict.outcome], flakyPolicy: .allow, userCancelled: false)
        let times = self.times(bundleSummary)
        let device = self.device()
        var facts: [String: String] = [:]
        if let scanner {
            facts["logBytes"] = "\(scanner.bytesRead)"
            facts["logLines"] = "\(scanner.facts.lineCount)"
            if let path = scanner.facts.resultBundlePath { facts["resultBundlePath"] = path }
        }
        let attempt = RunRecord.AttemptRecord(
            attempt: 1, outcome: verdict.outcome, evidence: verdict.evidence,
            exit: options.exitCode.map { "\($0)" }, simulatorUDID: device?.simulator.udid, startedAt: times.start ?? "",
            finishedAt: times.finish, durationSeconds: times.seconds, facts: facts, artifacts: artifacts)
        let layer = RunRecord.LayerRecord(
            name: options.layer, plugin: "xcodebuild-test", gate: .merge, outcome: verdict.outcome,
            evidence: verdict.evidence, attempts: [attempt], tests: tests)
        let record = RunRecord(
            runID: "", pipeline: options.pipeline, pipelineFile: "", status: .finished,
            request: RunRecord.Request(
                pipeline: options.pipeline, ref: "", workspace: "", requestedBy: "", trigger: "report"),
            simulator: device, startedAt: times.start ?? "", finishedAt: times.finish, durationSeconds: times.seconds,
            exitCode: exit.rawValue, layers: [layer])

        events.emit(
            .layerFinished(
                layer: options.layer, attempt: 1,
                result: LayerResultSummary(
                    outcome: verdict.outcome, evidence: verdict.evidence, exitText: attempt.exit,
                    passedTests: complete
                        ? tests.filter { $0.status == .passed }.count : bundleSummary?.passedTests ?? 0,
                    failedTests: complete
                        ? tests.filter { $0.status == .failed }.count
                        : max(bundleSummary?.failedTests ?? 0, tests.count),
                    seconds: times.seconds ?? 0)))
        events.emit(
            .runFinished(
                summary: RunFinishedSummary(
                    runID: "", status: .finished, exitCode: exit, layers: [(options.layer, verdict.outcome, [])],
                    pendingSignoffs: [], summaryPath: options.summaryPath, seconds: 0)))
        return ReportResult(
            record: record, earlierRuns: earlierRuns.isEmpty ? [:] : [options.layer: earlierRuns], exitCode: exit,
            problems: problems)
    }

    /// The bundle's tests when it has them (complete, and with each run when repeated), else the log's; the log
    /// fills in locations the bundle lacks.
    /// A problem with the input the verdict rests on: the log when there is one, else any bundle file.
    private var decidingInputProblem: InputProblem? {
        if let scanner, scanner.facts.lineCount > 0 { return problems.first { $0.source == logSource } }
        return problems.first
    }

    /// `alreadyShown`: how many of the tests, from the first, were shown while the log streamed.
    /// `complete`: whether the list holds every test (not only the failures a summary names).
    private func finalTests() -> (
        tests: [TestCaseResult], earlier: [TestCaseResult], alreadyShown: Int, complete: Bool
    ) {
        var tests: [TestCaseResult]
        var earlier: [TestCaseResult] = []
        var complete = true
        if let testResults {
            let runs = testResults.testCaseRuns
            tests = runs.map(\.result)
            earlier = runs.flatMap { $0.runs.dropLast().filter { $0.status == .failed } }
        } else if let legacyTests {
            tests = legacyTests.map { test in
                guard let detail = legacyDetails[test.identifier] else { return test }
                var merged = test
                merged.failureMessage = merged.failureMessage ?? detail.failureMessage
                merged.failureLocation = merged.failureLocation ?? detail.failureLocation
                return merged
            }
        } else if let scanner,
            !collector.results.isEmpty || !scanner.facts.failingTestsListed.isEmpty
                || !scanner.facts.crashedTestsNamed.isEmpty
        {
            let logged = collector.finalResults(reading: scanner.facts)
            // Every test of `logged` was shown as it ended; only those named under `Failing tests:` alone were not.
            let listed = collector.listedOnly(reading: scanner.facts, besides: logged)
            return (logged + listed, collector.earlierRuns, logged.count, true)
        } else {
            let failures = legacyRecord?.failedTests ?? summary?.testFailures.map(\.testCaseResult) ?? []
            tests = failures.map { legacyDetails[$0.identifier] ?? $0 }
            complete = false
        }
        // The library's suite-less names of failed Swift Testing tests, qualified by the bundle's failed tests.
        let logged =
            collector.results
            + collector.finalResults(
                xcodebuildReportedSwiftTesting: false,
                qualifiedNames: tests.filter { $0.status == .failed }.map(\.identifier))
        let fromLog = Dictionary(logged.map { ($0.identifier, $0) }, uniquingKeysWith: { first, _ in first })
        let legacyFailures = Dictionary(
            (legacyRecord?.failedTests ?? []).map { ($0.identifier, $0) }, uniquingKeysWith: { first, _ in first })
        for index in tests.indices where tests[index].status == .failed {
            for source in [fromLog[tests[index].identifier], legacyFailures[tests[index].identifier]] {
                guard let known = source else { continue }
                if tests[index].failureLocation == nil { tests[index].failureLocation = known.failureLocation }
                if tests[index].failureMessage == nil { tests[index].failureMessage = known.failureMessage }
            }
        }
        return (tests, earlier, 0, complete)
    }

    private func classify(summary: XcresultSummary?, tests: [TestCaseResult]) -> XcodebuildVerdict {
        guard let scanner, scanner.bytesRead > 0 else {
            return XcresultOutcomeClassifier.classify(
                exitCode: options.exitCode, summary: summary, tests: tests, legacy: legacyRecord)
        }
        let facts = scanner.facts
        var verdict: XcodebuildVerdict
        if let code = options.exitCode, let signal = Self.signalName(exitCode: code) {
            // A shell reports a process killed by signal N as 128 + N: the run was cut off, as `pipe run` sees
            // a signal, whatever failed before it.
            verdict = XcodebuildOutcomeClassifier.classify(exit: .signaled(signal), log: facts, summary: summary)
            verdict.evidence.insert("exit \(code): killed by signal \(signal) (128 + \(code - 128))", at: 1)
        } else if let code = options.exitCode {
            verdict = XcodebuildOutcomeClassifier.classify(exit: .exited(code), log: facts, summary: summary)
        } else if let assumed = XcodebuildAssumedExit.from(facts) {
            verdict = XcodebuildOutcomeClassifier.classify(exit: .exited(assumed.code), log: facts, summary: summary)
            let plain = "exit \(assumed.code)"
            let replacement = "exit \(assumed.code) assumed from \(assumed.basis) (no --exit-code given)"
            verdict.evidence = verdict.evidence.map { $0 == plain ? replacement : $0 }
        } else if let failed = XcodebuildOutcomeClassifier.classifyEndedWithoutVerdict(log: facts, summary: summary) {
            verdict = failed
        } else {
            var evidence = [
                "the run ended without a verdict: the log has no ** … ** success banner of the "
                    + "\(facts.requestedAction.name ?? "test") action and no --exit-code was given (killed, or cut short)"
            ]
            if let test = facts.lastStartedTest { evidence.append("the last test that started: \(test)") }
            verdict = XcodebuildVerdict(outcome: .infrastructure, evidence: evidence)
        }
        if facts.successBanner == nil, facts.failureBanner == nil, verdict.outcome == .infrastructure {
            let lines = scanner.lastLines(5)
            if !lines.isEmpty {
                verdict.evidence.append("the log's last lines:")
                verdict.evidence += lines.map { "  \($0)" }
            }
        }
        return verdict
    }

    /// Where the log's totals agree with its test lines but the list is shorter: some runs repeated a name (a
    /// retry, or Specta/Quick shared examples naming a test the same in several contexts), each listed once.
    private func repeatedNamesLine(listed: Int) -> String? {
        guard testResults == nil, legacyTests == nil, let facts = scanner?.facts,
            !facts.statedTotals.isEmpty || !facts.swiftTestingTotals.isEmpty, facts.totalsDisagreement == nil,
            listed < facts.statedTestRuns
        else { return nil }
        return "the log's totals count \(facts.statedTestRuns) test runs; \(facts.statedTestRuns - listed) of them "
            + "repeat a name already reported (a retry, or the same name in another context) and are listed once"
    }

    /// Without a log, the bundle's test cases as counted, and where its totals count another number, that they do:
    /// the inputs may come from two runs (a root record and test summaries of different bundles).
    private func bundleCountsLine(summary: XcresultSummary?, tests: [TestCaseResult]) -> String? {
        guard scanner.map({ $0.bytesRead == 0 }) ?? true, !tests.isEmpty else { return nil }
        let count = { (status: TestCaseResult.Status) in tests.filter { $0.status == status }.count }
        let listed =
            "the bundle's test cases: \(count(.passed)) passed, \(count(.failed)) failed, \(count(.skipped)) skipped"
        guard let summary else { return listed }
        guard summary.totalTestCount != tests.count else { return nil }
        return "\(listed); its totals count \(summary.totalTestCount) tests: the inputs may not be of the same run"
    }

    /// `137` → `KILL`: exit codes above 128 that a shell gives a process killed by a signal.
    static func signalName(exitCode: Int32) -> String? {
        guard exitCode > 128, exitCode < 160 else { return nil }
        let names: [Int32: String] = [
            1: "HUP", 2: "INT", 3: "QUIT", 4: "ILL", 6: "ABRT", 8: "FPE", 9: "KILL", 10: "BUS", 11: "SEGV", 13: "PIPE",
            14: "ALRM", 15: "TERM",
        ]
        return names[exitCode - 128] ?? "\(exitCode - 128)"
    }

    private func times(_ summary: XcresultSummary?) -> (start: String?, finish: String?, seconds: Double?) {
        if let start = summary?.startTime {
            let finish = summary?.finishTime
            return (ISOTimestamp.fromUnixTime(start), finish.map(ISOTimestamp.fromUnixTime), finish.map { $0 - start })
        }
        if let action = legacyRecord?.actions.first, let start = action.startedTime.flatMap(ISOTimestamp.unixTime) {
            let finish = action.endedTime.flatMap(ISOTimestamp.unixTime)
            return (ISOTimestamp.fromUnixTime(start), finish.map(ISOTimestamp.fromUnixTime), finish.map { $0 - start })
        }
        return (nil, nil, scanner?.facts.banner?.seconds)
    }

    /// The device the bundle names, as the record's simulator.
    private func device() -> SimulatorChoice? {
        if let device = summary?.devicesAndConfigurations.first?.device ?? testResults?.devices.first,
            let udid = device.deviceId
        {
            return choice(
                udid: udid, name: device.deviceName ?? device.modelName ?? "", platform: device.platform,
                version: device.osVersion)
        }
        if let destination = legacyRecord?.actions.first?.destination, let udid = destination.deviceIdentifier {
            return choice(
                udid: udid, name: destination.displayName ?? "", platform: destination.platform,
                version: destination.operatingSystemVersion)
        }
        return nil
    }

    private func choice(udid: String, name: String, platform: String?, version: String?) -> SimulatorChoice {
        let system = (platform ?? "").replacingOccurrences(of: " Simulator", with: "")
        let runtime = [system, version ?? ""].filter { !$0.isEmpty }.joined(separator: " ")
        return SimulatorChoice(
            simulator: Simulator(
                udid: udid, name: name, runtimeIdentifier: "", runtimeName: runtime, platform: system,
                runtimeVersion: version ?? "", state: ""),
            reason: "the device the result bundle names")
    }
}
