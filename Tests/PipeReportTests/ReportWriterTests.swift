import Foundation
import PipeCore
import PipeReport
import PipeTestSupport
import XCTest

#if canImport(FoundationXML)
    import FoundationXML
#endif

/// `JUnitReport` and `MarkdownSummary` for a run with a layer of every outcome: compared with golden files under
/// `Fixtures/writers/` (re-record with `PIPE_RECORD_SNAPSHOTS=1`), and checked for what CI servers rely on.
final class ReportWriterTests: XCTestCase {
    private let sample = SampleRecords.everyOutcome()
    private var junit: String { JUnitReport.render(sample.record, earlierRuns: sample.earlierRuns) }
    private var markdown: String { MarkdownSummary.render(sample.record, earlierRuns: sample.earlierRuns) }

    private func assertGolden(_ text: String, _ name: String, file: StaticString = #filePath, line: UInt = #line)
        throws
    {
        let url = Fixture.url("writers/\(name)")
        if ReportGoldenTests.recording {
            try FileManager.default.createDirectory(
                at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
            try Data(text.utf8).write(to: url)
            return
        }
        let expected = try Fixture.data("writers/\(name)")
        if expected != Data(text.utf8) {
            XCTFail(
                "\(name): " + ReportGoldenTests.firstDifference(expected, Data(text.utf8)), file: file, line: line)
        }
    }

    func testJUnitMatchesItsGoldenFile() throws {
        try assertGolden(junit, "every-outcome.junit.xml")
        XCTAssertEqual(junit, JUnitReport.render(sample.record, earlierRuns: sample.earlierRuns), "deterministic")
    }

    func testMarkdownMatchesItsGoldenFile() throws {
        try assertGolden(markdown, "every-outcome.md")
    }

    func testJUnitIsWellFormedAndItsCountsAddUp() throws {
        let reader = JUnitOutline(Data(junit.utf8))
        XCTAssertNil(reader.error, "not well-formed XML: \(String(describing: reader.error))")
        XCTAssertEqual(reader.suites.map(\.name), sample.record.layers.map(\.name))
        for suite in reader.suites {
            XCTAssertEqual(suite.declared["tests"], suite.cases.count, suite.name)
            XCTAssertEqual(suite.declared["failures"], suite.cases.filter { $0.children.contains("failure") }.count)
            XCTAssertEqual(suite.declared["errors"], suite.cases.filter { $0.children.contains("error") }.count)
            XCTAssertEqual(suite.declared["skipped"], suite.cases.filter { $0.children.contains("skipped") }.count)
        }
        let suites = Dictionary(uniqueKeysWithValues: reader.suites.map { ($0.name, $0) })
        // Environment failures are errors, app failures are failures, layers that did not run are skipped.
        XCTAssertEqual(suites["device"]?.cases.map(\.children), [["error"]])
        XCTAssertEqual(suites["network"]?.cases.map(\.children), [["error"]])
        XCTAssertEqual(suites["build"]?.cases.map(\.children), [["failure"]])
        XCTAssertEqual(suites["smoke"]?.cases.map(\.children), [["skipped"]])
        XCTAssertEqual(suites["haptics"]?.cases.map(\.children), [["skipped"]])
        XCTAssertEqual(suites["release-notes"]?.cases.map(\.children), [[]])
        // A flaky test is one passing test case with its earlier failure; one that failed twice has both.
        XCTAssertEqual(suites["intents"]?.cases.map(\.children), [["flakyFailure", "stackTrace"]])
        XCTAssertEqual(
            suites["ui"]?.cases.map(\.children), [["failure", "rerunFailure", "stackTrace", "system-out"]],
            "its screenshots")
        XCTAssertEqual(suites["logic"]?.cases.count, 4, "no layer-outcome case when the tests tell the outcome")
        XCTAssertEqual(suites["ui"]?.cases.first?.attributes["classname"], "ui.Outer.Inner")
        XCTAssertEqual(suites["ui"]?.cases.first?.attributes["name"], "testRender()")
        XCTAssertEqual(suites["ui"]?.cases.first?.attributes["file"], "RenderTests.swift")
        XCTAssertEqual(suites["ui"]?.cases.first?.attributes["line"], "88")
    }

    func testHardTextIsEscapedNotInterpreted() throws {
        XCTAssertTrue(junit.contains("message=\"XCTAssertEqual failed: (&quot;&lt;a &amp; b&gt;&quot;)"))
        XCTAssertFalse(junit.contains("\u{07}"), "XML 1.0 cannot hold a BEL character")
        let reader = JUnitOutline(Data(junit.utf8))
        let message = reader.suites.first { $0.name == "ui" }?.cases.first?.messages.first
        XCTAssertEqual(message?.hasPrefix("XCTAssertEqual failed: (\"<a & b>\") is not equal to (\"`c` | d\")\n"), true)
        // In Markdown the message sits in a fenced block; the table escapes `|`.
        XCTAssertTrue(
            markdown.contains("  ```\n  XCTAssertEqual failed: (\"<a & b>\") is not equal to (\"`c` | d\")\n"))
    }

    func testSecretsNeverReachTheReports() {
        let redactor = SecretRedactor(SecretValues(["S0": "s3cr3t"]))
        let outputs = [
            JUnitReport.render(sample.record, earlierRuns: sample.earlierRuns, redactor: redactor),
            MarkdownSummary.render(sample.record, earlierRuns: sample.earlierRuns, redactor: redactor),
        ]
        XCTAssertTrue(junit.contains("s3cr3t"), "the sample holds the secret, so this test can fail")
        for output in outputs {
            XCTAssertFalse(output.contains("s3cr3t"))
            XCTAssertTrue(output.contains(SecretRedactor.mask(for: "S0")))
        }
    }

    func testRunReportsWritesBothFilesAndNoTemporaryOnes() throws {
        let folder = try TemporaryDirectory()
        defer { folder.remove() }
        let target = folder.appending("artifacts/20261129-140312-7f3a")
        let written = try RunReports.write(record: sample.record, earlierRuns: sample.earlierRuns, to: target)
        XCTAssertEqual(written.map(\.lastPathComponent), ["junit.xml", "summary.md"])
        XCTAssertEqual(try String(contentsOf: written[0], encoding: .utf8), junit)
        XCTAssertEqual(try String(contentsOf: written[1], encoding: .utf8), markdown)
        XCTAssertEqual(
            try FileManager.default.contentsOfDirectory(atPath: target.path).sorted(), ["junit.xml", "summary.md"])
    }

    func testLongFailureListsAreCut() {
        var record = SampleRecords.everyField()
        record.layers[0].tests = (1...30).map {
            TestCaseResult(identifier: "Many/test\($0)()", status: .failed, failureMessage: "failed \($0)")
        }
        let text = MarkdownSummary.render(record)
        XCTAssertTrue(text.contains("`Many/test20()`"))
        XCTAssertFalse(text.contains("`Many/test21()`"))
        XCTAssertTrue(text.contains("- … and 10 more (see the JUnit report)"))
    }
}

/// The elements of a JUnit report that the tests check, read with Foundation's XML parser.
private final class JUnitOutline: NSObject, XMLParserDelegate {
    struct TestCase {
        var attributes: [String: String]
        var children: [String] = []
        var messages: [String] = []
    }

    struct Suite {
        var name: String
        var declared: [String: Int]
        var cases: [TestCase] = []
    }

    private(set) var suites: [Suite] = []
    private(set) var error: Error?

    init(_ data: Data) {
        super.init()
        let parser = XMLParser(data: data)
        parser.delegate = self
        if !parser.parse() { error = parser.parserError ?? CocoaError(.fileReadCorruptFile) }
    }

    func parser(
        _ parser: XMLParser, didStartElement element: String, namespaceURI: String?, qualifiedName: String?,
        attributes: [String: String] = [:]
    ) {
        switch element {
        case "testsuite":
            var declared: [String: Int] = [:]
            for key in ["tests", "failures", "errors", "skipped"] { declared[key] = attributes[key].flatMap(Int.init) }
            suites.append(Suite(name: attributes["name"] ?? "", declared: declared))
        case "testcase":
            suites[suites.count - 1].cases.append(TestCase(attributes: attributes))
        case "properties", "property", "testsuites":
            break
        default:
            guard !suites.isEmpty, !suites[suites.count - 1].cases.isEmpty else { return }
            let last = suites[suites.count - 1].cases.count - 1
            suites[suites.count - 1].cases[last].children.append(element)
            if let message = attributes["message"] { suites[suites.count - 1].cases[last].messages.append(message) }
        }
    }

    func parser(_ parser: XMLParser, parseErrorOccurred parseError: Error) {
        error = parseError
    }
}
