import Foundation
import PipeTestSupport
import XCTest

/// `pipe run --report <forge>`: a person's run posts to the forge stand-in under contexts of its own, marked
/// manual, and never on the context branch protection requires.
final class ManualReportTests: ForgeLoopTestCase {
    func testARunWithReportPostsPendingThenItsVerdictUnderTheManualContext() throws {
        let project = try forgeProject()
        let head = try CommandRunner.shell("git rev-parse HEAD", currentDirectory: project.url).stdout
            .trimmingCharacters(in: .whitespacesAndNewlines)
        let run = try project.pipe(["run", "app-intents", "--report", "github"])
        XCTAssertEqual(run.exitCode, 0, run.combined)
        XCTAssertTrue(
            run.stderr.contains("--report github: posted pipe/app-intents/merge/manual on \(head)"), run.stderr)
        let posted = try statuses(for: head)
        XCTAssertEqual(
            posted.map { $0["state"] as? String ?? "" }, ["pending", "success"],
            "pending once checked out, then the verdict")
        XCTAssertEqual(Set(posted.map { $0["context"] as? String ?? "" }), ["pipe/app-intents/merge/manual"])
        XCTAssertTrue((posted.last?["description"] as? String ?? "").hasPrefix("manual run: "), "\(posted)")
        XCTAssertEqual(try standIn.invalidRequests().map(\.path), [])
    }

    func testAnUnknownForgeOrAMissingTokenIsRefusedBeforeAnythingRuns() throws {
        let project = try forgeProject()
        let unknown = try project.pipe(["run", "app-intents", "--report", "githb"])
        XCTAssertEqual(unknown.exitCode, 2, unknown.combined)
        XCTAssertTrue(
            unknown.stderr.contains("forges.yml has no forge 'githb'; did you mean 'github'?"), unknown.stderr)
        try FileManager.default.removeItem(at: project.url.appendingPathComponent(".pipe/forge-secrets/token"))
        let tokenless = try project.pipe(["run", "app-intents", "--report", "github"])
        XCTAssertEqual(tokenless.exitCode, 2, tokenless.combined)
        XCTAssertTrue(tokenless.stderr.contains("--report github: no credential for \(repository)"), tokenless.stderr)
        XCTAssertEqual(try runs(project).count, 0, "neither refusal ran anything")
        XCTAssertEqual(try standIn.requests().count, 0)
    }

    func testASignoffOfAReportedRunTurnsItsManualReleaseStatus() throws {
        let project = try forgeProject()
        try commitReleaseChecklist(in: project)
        let head = try CommandRunner.shell("git rev-parse HEAD", currentDirectory: project.url).stdout
            .trimmingCharacters(in: .whitespacesAndNewlines)
        func state(_ context: String) throws -> String? {
            try statuses(for: head).last { $0["context"] as? String == context }?["state"] as? String
        }
        let run = try project.pipe(["run", "app-intents", "--report", "github"])
        XCTAssertEqual(run.exitCode, 0, "the merge gate passed: \(run.combined)")
        XCTAssertEqual(try state("pipe/app-intents/merge/manual"), "success")
        XCTAssertEqual(try state("pipe/app-intents/release/manual"), "pending")

        let signed = try project.pipe([
            "signoff", "last", "shortcuts", "--result", "pass", "--by", "tester@example.com",
        ])
        XCTAssertEqual(signed.exitCode, 0, signed.combined)
        let sent = try project.pipe(["forge", "send"])
        XCTAssertEqual(sent.exitCode, 0, sent.combined)
        XCTAssertEqual(try state("pipe/app-intents/release/manual"), "success", sent.combined)
        XCTAssertNil(try state("pipe/app-intents/release"), "never the required context")
        XCTAssertEqual(try standIn.invalidRequests().map(\.path), [])
    }
}
