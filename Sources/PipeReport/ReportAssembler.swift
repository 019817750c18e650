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

    let options: Options
    let events: EventSink
    var started = false
    var readSomething = false

    var scanner: XcodebuildLogScanner?
    var logSource = ""
    var logDigest = SHA256Digest()
    var collector = XcodebuildTestCollector()

    var summary: XcresultSummary?
    var testResults: XcresultTestResults?
    var legacyRecord: XcresultLegacyInvocationRecord?
    var legacyTests: [TestCaseResult]?
    var legacyDetails: [String: TestCaseResult] = [:]
    /// Legacy `ActionTestSummary` files, which need the root record beside them.
    var loneTestSummaries: [String] = []
    var artifacts: [ArtifactRecord] = []
    /// Inputs not read in full so far.
    public internal(set) var problems: [InputProblem] = []

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
}
