import Foundation
import PipeForge
import XCTest

/// Check runs: the state, the summary within GitHub's limits, annotations 50 at a time, and finding them again.
final class GitHubCheckRunTests: XCTestCase {
    private let now = Date(timeIntervalSince1970: 1_800_000_000)

    private func run(_ state: ForgeGateReport.State, tests: [ForgeFailingTest] = []) -> GitHubCheckRun {
        GitHubCheckRun(
            repository: ForgeFixtures.repository(.github), report: ForgeFixtures.report(state), sha: ForgeFixtures.sha,
            comment: ForgeFixtures.comment(tests: tests), failingTests: tests, checkoutRoot: "/Users/ci/work/reader",
            baseURL: "https://pipe.example")
    }

    func testTheStateOfEachGateState() throws {
        let expected: [(String, String?)] = [
            ("queued", nil), ("in_progress", nil), ("in_progress", nil), ("completed", "success"),
            ("completed", "failure"), ("completed", "failure"), ("completed", "failure"), ("completed", "failure"),
            ("completed", "failure"), ("completed", "cancelled"), ("completed", "cancelled"),
        ]
        for (state, (status, conclusion)) in zip(ForgeFixtures.everyState, expected) {
            let body = try run(state).create(at: now).body
            XCTAssertEqual(body?["status"]?.stringValue, status, "\(state)")
            XCTAssertEqual(body?["conclusion"]?.stringValue, conclusion, "\(state)")
            XCTAssertEqual(body?["completed_at"]?.stringValue, conclusion.map { _ in "2027-01-15T08:00:00.000Z" })
        }
        let judged = try run(.couldNotJudge(.hostConfig, reason: "scheme Reader is not shared")).create(at: now)
        XCTAssertEqual(
            judged.body?["output"]?["title"]?.stringValue,
            "Pipe could not judge: host-config: scheme Reader is not shared")
    }

    func testTheCreateNamesItAndCarriesTheFirst50Annotations() throws {
        let tests = ForgeFixtures.failingTests(120)
        let request = try run(
            .appFailed(.init(layer: "intent", failedTests: 120, totalTests: 300, reason: "")), tests: tests
        )
        .create(at: now)
        XCTAssertEqual(request.method, .post)
        XCTAssertEqual(request.path, "/repos/acme/reader/check-runs")
        let body = try XCTUnwrap(request.body)
        XCTAssertEqual(body["name"]?.stringValue, "pipe/app-intents/merge")
        XCTAssertEqual(body["head_sha"]?.stringValue, ForgeFixtures.sha.value)
        XCTAssertEqual(body["external_id"]?.stringValue, "pipe:app-intents:merge:20261202-170501-7f3a")
        XCTAssertEqual(body["details_url"]?.stringValue, "https://pipe.example/runs/20261202-170501-7f3a")
        let annotations = try XCTUnwrap(body["output"]?["annotations"]?.arrayValue)
        XCTAssertEqual(annotations.count, 50)
        XCTAssertEqual(
            annotations[0],
            .object([
                ("path", .string("Tests/ReaderTests/ReaderTests.swift")), ("start_line", .integer(10)),
                ("end_line", .integer(10)), ("annotation_level", .string("failure")),
                ("title", .string("ReaderTests.testCase0() (intent)")),
                ("message", .string(#"XCTAssertEqual failed: ("") is not equal to ("x")"#)),
            ]))
        let summary = try XCTUnwrap(body["output"]?["summary"]?.stringValue)
        XCTAssertFalse(summary.contains("<!-- pipe:comment"), "the marker belongs to the comment only")
        XCTAssertTrue(summary.contains("#### Failing tests (120)"))
    }

    func testAnnotationsPastTheFirst50GoInUpdatesOf50AndUpdatesCarryNone() throws {
        let check = run(
            .appFailed(.init(layer: "intent", failedTests: 120, reason: "")), tests: ForgeFixtures.failingTests(120))
        let batches = try check.annotationBatches(checkRunID: 9, skippingFirst: 50)
        XCTAssertEqual(batches.map { $0.body?["output"]?["annotations"]?.arrayValue?.count }, [50, 20])
        XCTAssertEqual(batches.map(\.path), ["/repos/acme/reader/check-runs/9", "/repos/acme/reader/check-runs/9"])
        XCTAssertEqual(batches.map(\.method), [.patch, .patch])
        XCTAssertEqual(
            batches.last?.body?["output"]?["annotations"]?.arrayValue?.last?["start_line"], .integer(129))
        XCTAssertEqual(try check.annotationBatches(checkRunID: 9, skippingFirst: 0).count, 3)
        let update = try check.update(checkRunID: 9, at: now)
        XCTAssertNil(update.body?["output"]?["annotations"], "an update sent twice must not add annotations twice")
        XCTAssertEqual(update.body?["conclusion"]?.stringValue, "failure")
    }

    func testOnlyTestsWithARepositoryFileAndLineAreAnnotated() throws {
        let tests = [
            ForgeFailingTest(
                layer: "l", name: "absolute", message: "m", file: "/Users/ci/work/reader/Tests/A.swift", line: 4),
            ForgeFailingTest(layer: "l", name: "outside", message: "m", file: "/etc/passwd", line: 1),
            ForgeFailingTest(layer: "l", name: "climbs", message: "m", file: "Tests/../../x.swift", line: 1),
            ForgeFailingTest(layer: "l", name: "no line", message: "m", file: "Tests/B.swift"),
            ForgeFailingTest(layer: "l", name: "line 0", message: "", file: "Tests/C.swift", line: 0),
            ForgeFailingTest(layer: "l", name: "empty message", message: " ", file: "Tests/D.swift", line: 2),
            ForgeFailingTest(
                layer: "l", name: "prefix trick", message: "m", file: "/Users/ci/work/reader-evil/E.swift", line: 3),
        ]
        let annotations = try run(.appFailed(.init(layer: "l", reason: "")), tests: tests).create(at: now).body?[
            "output"]?[
                "annotations"]?.arrayValue
        XCTAssertEqual(annotations?.compactMap { $0["path"]?.stringValue }, ["Tests/A.swift", "Tests/D.swift"])
        XCTAssertEqual(annotations?.last?["message"]?.stringValue, "failed", "GitHub requires a message")
    }

    func testTheOutputStaysWithinGitHubsLimits() throws {
        let huge = String(repeating: "é", count: 70_000)
        let long = String(repeating: "é", count: 3_000)
        let tests = (0..<700).map {
            ForgeFailingTest(
                layer: "l", name: $0 == 0 ? huge : long, message: $0 == 0 ? huge : long, file: "Tests/T\($0).swift",
                line: 1)
        }
        let check = run(.appFailed(.init(layer: "l", failedTests: 700, reason: "")), tests: tests)
        let output = try XCTUnwrap(check.create(at: now).body?["output"])
        XCTAssertLessThanOrEqual(output["summary"]?.stringValue?.unicodeScalars.count ?? .max, 65_535)
        XCTAssertTrue(output["summary"]?.stringValue?.contains("200 more failing tests are not annotated") ?? false)
        for annotation in output["annotations"]?.arrayValue ?? [] {
            XCTAssertLessThanOrEqual(annotation["title"]?.stringValue?.unicodeScalars.count ?? .max, 255)
            XCTAssertLessThanOrEqual(annotation["message"]?.stringValue?.utf8.count ?? .max, 64_000)
        }
        XCTAssertEqual(try check.annotationBatches(checkRunID: 1, skippingFirst: 50).count, 9, "500 in all")
    }

    func testFoundAgainByExternalIDFromPipesAppOnly() throws {
        let check = run(.running)
        let list = try check.list(appID: 42)
        XCTAssertEqual(list.path, "/repos/acme/reader/commits/\(ForgeFixtures.sha)/check-runs")
        XCTAssertEqual(list.query.first { $0.0 == "app_id" }?.1, "42")
        let external = check.externalID
        let answer = ForgeResponse(
            status: 200,
            body: Array(
                """
                {"total_count":3,"check_runs":[
                 {"id":1,"external_id":"\(external)","app":{"id":666},"head_sha":"\(ForgeFixtures.sha)"},
                 {"id":2,"external_id":"other","app":{"id":42},"head_sha":"\(ForgeFixtures.sha)"},
                 {"id":3,"external_id":"\(external)","app":{"id":42},"head_sha":"\(ForgeFixtures.sha)"}]}
                """.utf8))
        XCTAssertEqual(check.find(in: answer, appID: 42), 3)
        XCTAssertNil(check.find(in: answer, appID: 7))
        var manual = check
        manual.report.isManual = true
        XCTAssertEqual(manual.externalID, "pipe:app-intents:merge:manual:20261202-170501-7f3a")
        XCTAssertEqual(try manual.create(at: now).body?["name"]?.stringValue, "pipe/app-intents/merge/manual")
    }
}
