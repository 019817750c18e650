import Foundation
import PipeApple
import PipeBasics
import PipeCore

/// Turns results made elsewhere (an `xcodebuild` log, `xcresulttool` output copied off a Mac, an exit code) into
/// the record a run would have written for one layer, with the same classification, while emitting the same
/// events a run emits, so the same renderers show it.
///
/// Feed the log in chunks as it arrives (`beginLog`, `feedLog`, `endLog`), add bundle files, then `finish()`.
/// Input that cannot be read in full is reported as an `InputProblem` with the place reading stopped, and
/// whatever was read up to there is still used. Output is deterministic: no wall-clock time is used, only times
/// found in the inputs.
public final class ReportAssembler {
    /// How the report is labelled and what is known besides the inputs.
    public struct Options: Sendable {
        /// The layer's name (the JUnit suite, the Markdown row).
        public var layer: String
        /// The record's pipeline name.
        public var pipeline: String
        /// xcodebuild's exit code, when known (`--exit-code`).
        public var exitCode: Int32?
        /// Where the record will be written, for the final event (empty when it is not written).
        public var summaryPath: String
        /// Also emit the raw log as `output` events.
        public var emitOutput: Bool
        /// Also emit each input problem as a `warning` event (for JSON-lines output, where stderr is not read).
        public var warnInEvents: Bool

        public init(
            layer: String = "tests", pipeline: String = "report", exitCode: Int32? = nil, summaryPath: String = "",
            emitOutput: Bool = false, warnInEvents: Bool = false
        ) {
            self.layer = layer
            self.pipeline = pipeline
            self.exitCode = exitCode
            self.summaryPath = summaryPath
            self.emitOutput = emitOutput
            self.warnInEvents = warnInEvents
        }
    }

    private let options: Options
    private let events: EventSink
    private var started = false
    private var readSomething = false

    private var scanner: XcodebuildLogScanner?
    private var logSource = ""
    private var logDigest = SHA256Digest()
    private var collector = XcodebuildTestCollector()

    private var summary: XcresultSummary?
    private var testResults: XcresultTestResults?
    private var legacyRecord: XcresultLegacyInvocationRecord?
    private var legacyTests: [TestCaseResult]?
    private var legacyDetails: [String: TestCaseResult] = [:]
    /// Legacy `ActionTestSummary` files, which need the root record beside them.
    private var loneTestSummaries: [String] = []
    private var artifacts: [ArtifactRecord] = []
    /// Inputs not read in full so far.
    public private(set) var problems: [InputProblem] = []

    public init(options: Options, events: EventSink) {
        self.options = options
        self.events = events
    }

    // MARK: - The log

    /// Starts reading a log; `source` names it in problems and artifacts (a path, or `-` for stdin).
    public func beginLog(source: String) {
        start()
        logSource = source
        scanner = XcodebuildLogScanner()
    }

    /// Reads a chunk of the log, showing each test as it ends.
    public func feedLog(_ chunk: Data) {
        guard let scanner, scanner.stop == nil else { return }
        let before = scanner.bytesRead
        let logEvents = scanner.feed(chunk)
        let used = Int(scanner.bytesRead - before)
        chunk.prefix(used).withUnsafeBytes { logDigest.update($0) }
        if options.emitOutput, used > 0 {
            events.emit(
                .output(
                    layer: options.layer, stream: .stdout, text: String(decoding: chunk.prefix(used), as: UTF8.self)))
        }
        handle(logEvents)
    }

    /// Ends the log; `readError` says why reading failed, when it did (what was read is still used).
    public func endLog(readError: String? = nil) {
        guard let scanner else { return }
        handle(scanner.finish())
        let lines = scanner.facts.lineCount
        let position = "line \(lines + 1) (byte \(scanner.bytesRead))"
        let consequence =
            lines == 0
            ? "nothing before it could be read"
            : (lines == 1 ? "the line before it is reported" : "the \(lines) lines before it are reported")
        if let stop = scanner.stop {
            problems.append(
                InputProblem(
                    source: logSource, position: "line \(stop.line) (byte \(stop.byteOffset))", message: stop.reason,
                    consequence: consequence))
        } else if let readError {
            problems.append(
                InputProblem(source: logSource, position: position, message: readError, consequence: consequence))
        }
        if lines > 0 {
            readSomething = true
            if logSource != "-" {
                artifacts.append(
                    ArtifactRecord(
                        kind: .log, path: logSource, bytes: scanner.bytesRead, sha256: logDigest.finalizeHex()))
            }
        } else if scanner.stop == nil, readError == nil, scanner.bytesRead == 0 {
            problems.append(
                InputProblem(
                    source: logSource, position: nil, message: "the log is empty",
                    consequence: "there is nothing to report from it"))
        }
    }

    private func handle(_ logEvents: [XcodebuildLogEvent]) {
        for event in logEvents {
            guard case .testFinished(let result, let origin) = event else { continue }
            if collector.record(result, origin: origin) {
                events.emit(.testFinished(layer: options.layer, result: result))
            }
        }
    }

    // MARK: - Bundle files

    /// `xcrun xcresulttool get test-results summary` output.
    public func addSummaryJSON(_ data: Data, source: String) {
        start()
        guard let (value, partial) = readJSON(data, source: source, kind: .summaryJSON) else { return }
        if let hint = Self.wrongKind(value, expected: "--summary-json") {
            return refuse(source, partial: partial, hint)
        }
        do {
            summary = try XcresultSummary.decode(try JSONSerialization.data(withJSONObject: value))
            readSomething = true
        } catch {
            refuse(source, partial: partial, error)
        }
    }

    /// `xcrun xcresulttool get test-results tests` output.
    public func addTestsJSON(_ data: Data, source: String) {
        start()
        guard let read = readJSON(data, source: source, kind: .summaryJSON) else { return }
        var value = read.0
        let partial = read.1
        if let hint = Self.wrongKind(value, expected: "--tests-json") {
            return refuse(source, partial: partial, hint)
        }
        // A file cut short leaves nodes without their later keys (`nodeType`, `result` sort after `children`):
        // keep only whole nodes, so the cases read before the cut are still reported.
        if partial, var object = value as? [String: Any], let nodes = object["testNodes"] as? [Any] {
            object["testNodes"] = Self.wholeNodes(nodes)
            value = object
        }
        do {
            let results = try XcresultTestResults.decode(try JSONSerialization.data(withJSONObject: value))
            testResults = results
            readSomething = true
            if partial, var last = problems.popLast() {
                let count = results.testCases.count
                last.consequence =
                    count == 1
                    ? "the test case read before it is reported"
                    : "the \(count) test cases read before it are reported"
                problems.append(last)
            }
        } catch {
            refuse(source, partial: partial, error)
        }
    }

    /// Legacy `xcrun xcresulttool get --legacy --format json` output: the root record, or an object fetched with
    /// `--id` (told apart by `_type._name`).
    public func addLegacyJSON(_ data: Data, source: String) {
        start()
        guard let (value, partial) = readJSON(data, source: source, kind: .other) else { return }
        do {
            switch try XcresultLegacyDocument.read(ControlSequences.stripStrings(in: value)) {
            case .invocationRecord(let record):
                legacyRecord = record
            case .testPlanRunSummaries(let summaries):
                legacyTests = (legacyTests ?? []) + summaries.tests
            case .testSummary(let detail):
                legacyDetails[detail.result.identifier] = detail.result
                // One test's details add to the root record's tests; alone they say nothing of the run.
                loneTestSummaries.append(source)
                return
            }
            readSomething = true
        } catch {
            refuse(source, partial: partial, error)
        }
    }

    /// An input that could not be opened at all.
    public func addUnreadableInput(source: String, message: String) {
        problems.append(InputProblem(source: source, position: nil, message: message, consequence: "it is left out"))
    }

    private func readJSON(_ data: Data, source: String, kind: ArtifactRecord.Kind) -> (Any, Bool)? {
        artifacts.append(
            ArtifactRecord(kind: kind, path: source, bytes: Int64(data.count), sha256: SHA256Digest.hex(of: data)))
        let read = JSONReader.read(data)
        if let problem = read.problem {
            let position = "line \(problem.line), column \(problem.column) (byte \(problem.byteOffset))"
            problems.append(
                InputProblem(
                    source: source, position: position, message: problem.message,
                    consequence: read.value == nil
                        ? "nothing from this file is used" : "what was read before it is used"))
        }
        guard let value = read.value else { return nil }
        return (value, read.problem != nil)
    }

    private func refuse(_ source: String, partial: Bool, _ error: Any) {
        if partial, var last = problems.popLast(), last.source == source {
            last.consequence = "what was read before it is not enough to use (\(error))"
            problems.append(last)
            return
        }
        problems.append(
            InputProblem(source: source, position: nil, message: "\(error)", consequence: "nothing from it is used"))
    }

    /// A file given under the wrong option: say which option it belongs to.
    private static func wrongKind(_ value: Any, expected: String) -> String? {
        guard let object = value as? [String: Any] else { return nil }
        let actual: (option: String, command: String)
        if object["_type"] != nil {
            actual = ("--legacy-json", "legacy `get --legacy --format json`")
        } else if object["testNodes"] != nil {
            actual = ("--tests-json", "`get test-results tests`")
        } else if object["totalTestCount"] != nil || object["testFailures"] != nil {
            actual = ("--summary-json", "`get test-results summary`")
        } else {
            return nil
        }
        guard actual.option != expected else { return nil }
        return "this is \(actual.command) output; give it with \(actual.option)"
    }

    /// A node cut short loses the keys after `children`; its whole descendants take its place, since test cases
    /// are found at any depth.
    private static func wholeNodes(_ nodes: [Any]) -> [Any] {
        nodes.flatMap { element -> [Any] in
            guard var node = element as? [String: Any] else { return [] }
            let children = wholeNodes(node["children"] as? [Any] ?? [])
            guard node["nodeType"] is String, node["name"] is String else { return children }
            if node["children"] != nil { node["children"] = children }
            return [node]
        }
    }

    private func start() {
        guard !started else { return }
        started = true
        events.emit(.layerStarted(layer: options.layer, attempt: 1))
    }

    // MARK: - The verdict

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
        } else if let scanner, !collector.results.isEmpty || !scanner.facts.failingTestsListed.isEmpty {
            let logged = collector.finalResults(
                xcodebuildReportedSwiftTesting: scanner.facts.xcodebuildReportedSwiftTesting)
            // Every test of `logged` was shown as it ended; only those named under `Failing tests:` alone were not.
            return (logged + listedOnly(scanner.facts), collector.earlierRuns, logged.count, true)
        } else {
            let failures = legacyRecord?.failedTests ?? summary?.testFailures.map(\.testCaseResult) ?? []
            tests = failures.map { legacyDetails[$0.identifier] ?? $0 }
            complete = false
        }
        let fromLog = Dictionary(collector.results.map { ($0.identifier, $0) }, uniquingKeysWith: { first, _ in first })
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

    /// Tests named under `Failing tests:` that no test line reported (a log that dropped them, a crash): they
    /// failed all the same.
    private func listedOnly(_ facts: XcodebuildLogFacts) -> [TestCaseResult] {
        let known = Set(collector.results.map(\.identifier))
        return facts.failingTestsListed.items.filter { !known.contains($0) }.map {
            TestCaseResult(
                identifier: $0, status: .failed,
                failureMessage: "listed under `Failing tests:`; the log has no line for the test itself")
        }
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
        guard testResults == nil, legacyTests == nil, let facts = scanner?.facts, !facts.statedTotals.isEmpty,
            facts.totalsDisagreement == nil, listed < facts.statedExecuted
        else { return nil }
        return "the log's totals count \(facts.statedExecuted) test runs; \(facts.statedExecuted - listed) of them "
            + "repeat a name already reported (a retry, or the same name in another context) and are listed once"
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
