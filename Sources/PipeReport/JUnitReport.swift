import Foundation
import PipeCore

/// A run as JUnit XML: one `<testsuite>` per layer, one `<testcase>` per test, in the dialect CI servers read.
///
/// - Failed tests have `<failure>`, skipped ones `<skipped>` (GitLab, Jenkins, GitHub test-report actions).
/// - A test that failed on an earlier run and passed in the end keeps one `<testcase>` with a `<flakyFailure>` per
///   earlier failure; a test that failed every time has `<failure>` and a `<rerunFailure>` per earlier failure. This
///   is Maven Surefire's and Gradle's format (`rerunFailingTestsCount`, `mergeReruns`), read as flaky by Jenkins'
///   Flaky Test Handler, action-junit-report and Allure; readers that do not know the elements ignore them, so a
///   flaky test still counts once, as passed, and counts are never doubled (GitLab keeps only the first of
///   duplicate test names, which rules out one `<testcase>` per attempt).
/// - A layer whose outcome its tests do not tell (a build failure, a timeout, a host or infrastructure problem, a
///   skipped or manual layer) gets one more `<testcase name="layer outcome">`: `<failure>` for what the app did
///   wrong (build failed, timed out, rejected), `<error>` for what kept Pipe from judging (host-config,
///   infrastructure, plugin-error), `<skipped>` for layers that did not run to the end or await a sign-off. That
///   way the report never shows a green suite for a layer that did not pass.
/// - `<properties>` carry the outcome, the gate, the exit and the evidence, for readers that show them.
/// - A test's attachments (screenshots brought back from the host) are `[[ATTACHMENT|path]]` lines in its
///   `<system-out>`, the form Jenkins' JUnit Attachments plugin and GitLab read; paths are relative to the
///   project folder, as in the run record.
///
/// Output is a pure function of its input: the same record gives the same bytes.
public enum JUnitReport {
    /// The test case that stands for a layer's own outcome.
    public static let layerOutcomeTestName = "layer outcome"

    /// - Parameters:
    ///   - record: the run record.
    ///   - earlierRuns: per layer, the test results of runs before the final ones (earlier attempts or
    ///     repetitions); the record holds only the final results.
    ///   - redactor: applied to every string taken from the run.
    public static func render(
        _ record: RunRecord, earlierRuns: [String: [TestCaseResult]] = [:], redactor: SecretRedactor = .none
    ) -> String {
        var writer = Writer(redactor: redactor)
        let suites = ReportedLayer.layers(of: record, earlierRuns: earlierRuns).map { writer.suite($0, record: record) }
        let totals = suites.reduce(into: Counts()) { $0.add($1.counts) }
        var xml = "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
        xml += "<testsuites name=\"\(writer.attribute(record.pipeline))\"" + totals.attributes
        if let time = totals.time { xml += " time=\"\(seconds(time))\"" }
        xml += ">\n"
        for suite in suites { xml += suite.xml }
        xml += "</testsuites>\n"
        return xml
    }

    fileprivate struct Counts {
        var tests = 0
        var failures = 0
        var errors = 0
        var skipped = 0
        var time: Double?

        mutating func add(_ other: Counts) {
            tests += other.tests
            failures += other.failures
            errors += other.errors
            skipped += other.skipped
            if let seconds = other.time { time = (time ?? 0) + seconds }
        }

        var attributes: String {
            " tests=\"\(tests)\" failures=\"\(failures)\" errors=\"\(errors)\" skipped=\"\(skipped)\""
        }
    }

    fileprivate static func seconds(_ value: Double) -> String { String(format: "%.3f", value) }

    private struct Writer {
        let redactor: SecretRedactor

        func attribute(_ text: String) -> String { XMLText.attribute(redactor.redact(text)) }
        func content(_ text: String) -> String { XMLText.content(redactor.redact(text)) }

        mutating func suite(_ layer: ReportedLayer, record: RunRecord) -> (xml: String, counts: Counts) {
            var counts = Counts()
            counts.time = layer.seconds
            var cases = ""
            for test in layer.tests { cases += testCase(test, layer: layer.record, counts: &counts) }
            if !layer.outcomeIsExplainedByTests { cases += outcomeCase(layer, counts: &counts) }

            var xml = "  <testsuite name=\"\(attribute(layer.record.name))\"" + counts.attributes
            if let time = counts.time { xml += " time=\"\(seconds(time))\"" }
            if let started = layer.record.attempts.first?.startedAt, !started.isEmpty {
                xml += " timestamp=\"\(attribute(Self.junitTimestamp(started)))\""
            }
            if let host = record.host?.name { xml += " hostname=\"\(attribute(host))\"" }
            xml += ">\n" + properties(layer, record: record) + cases + "  </testsuite>\n"
            return (xml, counts)
        }

        private func properties(_ layer: ReportedLayer, record: RunRecord) -> String {
            var pairs: [(String, String)] = record.runID.isEmpty ? [] : [("pipe.run", record.runID)]
            pairs += [
                ("pipe.layer", layer.record.name),
                ("pipe.outcome", layer.record.outcome?.rawValue ?? "unfinished"),
                ("pipe.gate", layer.record.gate.rawValue), ("pipe.plugin", layer.record.plugin),
            ]
            if let exit = layer.exit { pairs.append(("pipe.exit", exit)) }
            if layer.record.attempts.count > 1 { pairs.append(("pipe.attempts", "\(layer.record.attempts.count)")) }
            if let commit = record.commit { pairs.append(("pipe.commit", commit)) }
            if let xcode = record.xcode { pairs.append(("pipe.xcode", xcode)) }
            if let udid = layer.record.attempts.last?.simulatorUDID ?? record.simulator?.simulator.udid {
                pairs.append(("pipe.simulator", udid))
            }
            for line in layer.record.evidence { pairs.append(("pipe.evidence", line)) }
            var xml = "    <properties>\n"
            for (name, value) in pairs {
                xml += "      <property name=\"\(name)\" value=\"\(attribute(value))\"/>\n"
            }
            return xml + "    </properties>\n"
        }

        private func testCase(_ test: ReportedTest, layer record: RunRecord.LayerRecord, counts: inout Counts)
            -> String
        {
            counts.tests += 1
            let layer = record.name
            let (suite, name) = test.suiteAndName
            let classname = suite.map { "\(layer).\($0.replacingOccurrences(of: "/", with: "."))" } ?? layer
            var head = "    <testcase classname=\"\(attribute(classname))\" name=\"\(attribute(name))\""
            if let duration = test.result.durationSeconds { head += " time=\"\(seconds(duration))\"" }
            let location =
                ReportedTest.fileAndLine(test.result.failureLocation)
                ?? test.earlierFailures.lazy.compactMap { ReportedTest.fileAndLine($0.failureLocation) }.first
            if let location {
                head += " file=\"\(attribute(location.file))\""
                if let line = location.line { head += " line=\"\(line)\"" }
            }
            var body = ""
            switch test.result.status {
            case .failed:
                counts.failures += 1
                body += failureElement("failure", test.result)
                for earlier in test.earlierFailures { body += rerunElement("rerunFailure", earlier) }
            case .skipped:
                counts.skipped += 1
                body +=
                    test.result.failureMessage.map { "      <skipped message=\"\(attribute($0))\"/>\n" }
                    ?? "      <skipped/>\n"
            case .passed, .expectedFailure:
                for earlier in test.earlierFailures { body += rerunElement("flakyFailure", earlier) }
            }
            let attachments = AttachmentFacts.artifacts(of: test.result.identifier, in: record)
            if !attachments.isEmpty {
                let lines = attachments.map { "[[ATTACHMENT|\($0.path)]]\n" }.joined()
                body += "      <system-out>\(content(lines))</system-out>\n"
            }
            return body.isEmpty ? head + "/>\n" : head + ">\n" + body + "    </testcase>\n"
        }

        private func failureElement(_ element: String, _ result: TestCaseResult) -> String {
            let message = result.failureMessage ?? "failed"
            return "      <\(element) message=\"\(attribute(message))\" type=\"failure\">"
                + content(Self.detail(result)) + "</\(element)>\n"
        }

        /// Surefire's form for reruns: the text is in a `<stackTrace>` child.
        private func rerunElement(_ element: String, _ result: TestCaseResult) -> String {
            let message = result.failureMessage ?? "failed"
            return "      <\(element) message=\"\(attribute(message))\" type=\"failure\">"
                + "<stackTrace>\(content(Self.detail(result)))</stackTrace></\(element)>\n"
        }

        private static func detail(_ result: TestCaseResult) -> String {
            let location = result.failureLocation.map { "\($0): " } ?? ""
            return location + (result.failureMessage ?? "\(result.identifier) failed")
        }

        private func outcomeCase(_ layer: ReportedLayer, counts: inout Counts) -> String {
            counts.tests += 1
            let outcome = layer.record.outcome
            let name = layer.record.name
            let head =
                "    <testcase classname=\"\(attribute(name))\" name=\"\(JUnitReport.layerOutcomeTestName)\""
            let evidence = layer.record.evidence
            let message = ([outcome?.rawValue ?? "unfinished"] + evidence.prefix(1)).joined(separator: ": ")
            let body = evidence.isEmpty ? "" : content(evidence.joined(separator: "\n"))
            let type = outcome?.rawValue ?? "unfinished"
            switch outcome {
            case .passed?, .flaky?, .signedOff?:
                return head + "/>\n"
            case .testsFailed?, .buildFailed?, .timedOut?, .rejected?:
                counts.failures += 1
                return head + ">\n      <failure message=\"\(attribute(message))\" type=\"\(type)\">\(body)</failure>\n"
                    + "    </testcase>\n"
            case .hostConfig?, .infrastructure?, .pluginError?:
                counts.errors += 1
                return head + ">\n      <error message=\"\(attribute(message))\" type=\"\(type)\">\(body)</error>\n"
                    + "    </testcase>\n"
            case .skipped?, .cancelled?, .awaitingSignoff?, nil:
                counts.skipped += 1
                return head + ">\n      <skipped message=\"\(attribute(message))\"/>\n    </testcase>\n"
            }
        }

        /// JUnit's `timestamp` has no zone (the Ant schema): the record's UTC time without `Z` and milliseconds.
        static func junitTimestamp(_ iso: String) -> String {
            var text = Substring(iso)
            if text.hasSuffix("Z") { text = text.dropLast() }
            if let dot = text.lastIndex(of: "."), text[..<dot].contains("T") { text = text[..<dot] }
            return String(text)
        }
    }
}
