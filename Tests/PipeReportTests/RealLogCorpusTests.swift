import Foundation
import PipeApple
import PipeCore
import PipeReport
import XCTest

/// Every real log of `Fixtures/real/` through the same code as `pipe report`, against the invariants of issue 18 and
/// the table `Fixtures/real/corpus.tsv` (expected from reading each file, and what Pipe gives).
///
/// `PIPE_RECORD_SNAPSHOTS=1` rewrites the table's actual columns from what Pipe gives now; the expected columns
/// are never written by a test.
final class RealLogCorpusTests: XCTestCase {
    struct Row {
        var cells: [String]
        var file: String { cells[0] }
        var expected: String { cells[1...3].joined(separator: " ") }
        var actual: String { cells[4...6].joined(separator: " ") }
        var expectedOutcome: String { cells[1] }
    }

    /// Files whose counts Pipe lists differently from a reading of the file, and why (also in real/README.md).
    /// Every outcome is the expected one.
    static let countGaps: [String: String] = [
        "fastlane-xcode26_xcbeautify_failure.log": "the tests are only in xcbeautify's lines, which Pipe does not read",
        "xcpretty-raw_specta_fail.log": "Specta shared examples reuse a name in another context; listed once each",
        "xcodebuild.nvim-tc18.log": "two Swift Testing tests are named optional() (global and in a suite)",
        "xcbeautify-swift_test_log_macOS.log": "9 Swift Testing display names repeat across suites",
    ]

    static let tableURL = Fixture.url("real/corpus.tsv")

    static func rows() throws -> [Row] {
        let text = try String(contentsOf: tableURL, encoding: .utf8)
        return text.split(separator: "\n").filter { !$0.hasPrefix("#") }.map { line in
            Row(cells: line.split(separator: "\t", omittingEmptySubsequences: false).map(String.init))
        }
    }

    static func report(_ file: String) throws -> ReportResult {
        let assembler = ReportAssembler(options: .init(), events: EventRecorder())
        assembler.beginLog(source: file)
        assembler.feedLog(try Data(contentsOf: Fixture.url("real/logs/\(file)")))
        assembler.endLog()
        return try XCTUnwrap(assembler.finish(), file)
    }

    func testEveryLogIsInTheTable() throws {
        let files = try FileManager.default.contentsOfDirectory(atPath: Fixture.url("real/logs").path)
        XCTAssertEqual(Set(files), Set(try Self.rows().map(\.file)), "each log needs a row in corpus.tsv")
        XCTAssertGreaterThanOrEqual(files.count, 40)
    }

    /// Every row names where its file came from: repository, path, full commit and a licence that allows the copy.
    func testEveryRowNamesItsSource() throws {
        let licences: Set<String> = ["MIT", "BSD-2-Clause", "BSD-3-Clause", "Apache-2.0"]
        for row in try Self.rows() {
            XCTAssertEqual(row.cells.count, 12, "corpus.tsv row \(row.file): 12 tab-separated columns")
            guard row.cells.count == 12 else { continue }
            XCTAssertTrue(row.cells[7].contains("/"), "\(row.file): repository is owner/name, got '\(row.cells[7])'")
            XCTAssertFalse(row.cells[8].isEmpty, "\(row.file): the path in its repository is missing")
            let commit = row.cells[9]
            XCTAssertTrue(
                commit.count == 40 && commit.allSatisfy(\.isHexDigit), "\(row.file): commit '\(commit)' is not 40 hex")
            XCTAssertTrue(licences.contains(row.cells[10]), "\(row.file): licence '\(row.cells[10])' is not allowed")
            XCTAssertFalse(row.cells[11].isEmpty, "\(row.file): say why the expected verdict is what it is")
        }
    }

    func testTheInvariantsAndTheTable() throws {
        var recorded: [String] = []
        for var row in try Self.rows() {
            let result = try Self.report(row.file)
            let layer = try XCTUnwrap(result.record.layers.first)
            let passed = layer.tests.filter { $0.status == .passed }.count
            let failed = layer.tests.filter { $0.status == .failed }.count
            let outcome = layer.outcome?.rawValue ?? "none"
            let actual = [outcome, "\(passed)", "\(failed)"]
            if ProcessInfo.processInfo.environment["PIPE_RECORD_SNAPSHOTS"] == "1" {
                row.cells.replaceSubrange(4...6, with: actual)
            } else {
                XCTAssertEqual(
                    actual.joined(separator: " "), row.actual, "\(row.file): the table's actual columns are out of date"
                )
            }
            recorded.append(row.cells.joined(separator: "\t"))
            // Any failed test case means the layer is not passed.
            if failed > 0 { XCTAssertNotEqual(layer.outcome, .passed, row.file) }
            // Configuration and infrastructure are never counted against the app.
            if let decided = layer.outcome, [.hostConfig, .infrastructure].contains(decided) {
                XCTAssertEqual(result.exitCode, .environmentFailure, row.file)
            }
            // Every outcome has the line or field that decided it.
            XCTAssertFalse(layer.evidence.isEmpty, "\(row.file): an outcome without evidence")
            // The counts agree with the log's own totals (XCTest's and Swift Testing's), or the evidence says why not.
            let facts = XcodebuildLogParser.parse(try Data(contentsOf: Fixture.url("real/logs/\(row.file)"))).facts
            let listed = layer.tests.filter { $0.status != .skipped }.count
            if facts.totalsDisagreement != nil || listed < facts.statedTestRuns - facts.skippedCount {
                XCTAssertTrue(layer.evidence.contains { $0.contains("the log's totals") }, row.file)
            }
            // The same input always gives the same output.
            let encoder = JSONEncoder()
            encoder.outputFormatting = .sortedKeys
            let again = try Self.report(row.file)
            XCTAssertEqual(
                try encoder.encode(again.record), try encoder.encode(result.record),
                "\(row.file): a second read differs")
        }
        if ProcessInfo.processInfo.environment["PIPE_RECORD_SNAPSHOTS"] == "1" {
            let text = try String(contentsOf: Self.tableURL, encoding: .utf8)
            let header = text.split(separator: "\n").filter { $0.hasPrefix("#") }.map(String.init)
            try ((header + recorded).joined(separator: "\n") + "\n").write(
                to: Self.tableURL, atomically: true, encoding: .utf8)
        }
    }

    func testEveryVerdictIsTheExpectedOneAndOnlyTheKnownCountsDiffer() throws {
        let rows = try Self.rows()
        for row in rows {
            XCTAssertEqual(row.cells[4], row.expectedOutcome, "\(row.file): not the verdict expected from reading it")
        }
        let differing = Set(rows.filter { $0.expected != $0.actual }.map(\.file))
        XCTAssertEqual(differing, Set(Self.countGaps.keys), "the count gaps are the listed ones")
    }
}
