import Foundation
import PipeApple
import PipeCore
import PipeReport
import XCTest

/// Every real log of `Fixtures/real/` through the same code as `pipe report`, against the invariants of issue 18 and
/// the table `Fixtures/real/corpus.tsv` (expected from reading each file, and what Pipe gives).
final class RealLogCorpusTests: XCTestCase {
    struct Row {
        var file: String
        var expected: (outcome: String, passed: Int, failed: Int)
        var actual: (outcome: String, passed: Int, failed: Int)
    }

    static func rows() throws -> [Row] {
        let text = try String(contentsOf: Fixture.url("real/corpus.tsv"), encoding: .utf8)
        return text.split(separator: "\n").filter { !$0.hasPrefix("#") }.map { line in
            let cells = line.split(separator: "\t", omittingEmptySubsequences: false).map(String.init)
            return Row(
                file: cells[0], expected: (cells[1], Int(cells[2]) ?? -1, Int(cells[3]) ?? -1),
                actual: (cells[4], Int(cells[5]) ?? -1, Int(cells[6]) ?? -1))
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
    }

    func testTheInvariantsAndTheTable() throws {
        for row in try Self.rows() {
            let result = try Self.report(row.file)
            let layer = try XCTUnwrap(result.record.layers.first)
            let passed = layer.tests.filter { $0.status == .passed }.count
            let failed = layer.tests.filter { $0.status == .failed }.count
            let outcome = layer.outcome?.rawValue ?? "none"
            XCTAssertEqual(
                "\(outcome) \(passed) \(failed)", "\(row.actual.outcome) \(row.actual.passed) \(row.actual.failed)",
                "\(row.file): the table's actual columns are out of date")
            // Any failed test case means the layer is not passed.
            if failed > 0 { XCTAssertNotEqual(layer.outcome, .passed, row.file) }
            // Configuration and infrastructure are never counted against the app.
            if let decided = layer.outcome, [.hostConfig, .infrastructure].contains(decided) {
                XCTAssertEqual(result.exitCode, .environmentFailure, row.file)
            }
            // Every outcome has the line or field that decided it.
            XCTAssertFalse(layer.evidence.isEmpty, "\(row.file): an outcome without evidence")
            // The counts agree with the log's own totals, or the evidence says why not.
            let facts = XcodebuildLogParser.parse(try Data(contentsOf: Fixture.url("real/logs/\(row.file)"))).facts
            let listed = layer.tests.filter { $0.status != .skipped }.count
            if facts.totalsDisagreement != nil
                || (!facts.statedTotals.isEmpty && listed < facts.statedExecuted - facts.skippedCount)
            {
                XCTAssertTrue(layer.evidence.contains { $0.hasPrefix("the log's totals") }, row.file)
            }
            // The same input always gives the same output.
            let encoder = JSONEncoder()
            encoder.outputFormatting = .sortedKeys
            let again = try Self.report(row.file)
            XCTAssertEqual(
                try encoder.encode(again.record), try encoder.encode(result.record),
                "\(row.file): a second read differs")
        }
    }

    func testHowManyVerdictsAreAsExpected() throws {
        let rows = try Self.rows()
        let agreeing = rows.filter { "\($0.expected)" == "\($0.actual)" }
        // The rows that differ are the known gaps, listed in real/README.md.
        XCTAssertGreaterThanOrEqual(
            agreeing.count, rows.count - 2, rows.filter { "\($0.expected)" != "\($0.actual)" }.map(\.file).description)
        XCTAssertTrue(rows.allSatisfy { $0.expected.outcome == $0.actual.outcome }, "every verdict is the expected one")
    }
}
