import Foundation
import PipeChatOps
import PipeCore
import XCTest

/// The texts the chat receives.
final class ChatMessagesTests: XCTestCase {
    private func record(
        status: RunStatus, exitCode: Int32?, layers: [(String, Gate, LayerOutcome?)], problem: String? = nil
    ) -> RunRecord {
        RunRecord(
            runID: "20261129-140312-7f3a", pipeline: "app-intents", pipelineFile: "pipelines/app-intents.yml",
            status: status,
            request: .init(
                pipeline: "app-intents", ref: "feature/<b>&co", workspace: "examples/reader-app",
                requestedBy: "alice (U1)", trigger: "chat"),
            startedAt: "2026-11-29T14:03:12Z", durationSeconds: 42, exitCode: exitCode, problem: problem,
            layers: layers.map { .init(name: $0.0, plugin: "xcodebuild-test", gate: $0.1, outcome: $0.2) })
    }

    func testTheAcknowledgementIsTheIssuesLine() {
        XCTAssertEqual(
            ChatMessages.queued(ChatQueuedRun(runID: "20261129-140312-7f3a", pipeline: "app-intents", ref: "main")),
            "queued as run 20261129-140312-7f3a — app-intents @ main")
    }

    func testTheFinalStateNamesPendingChecklistsAndHowToSignThem() {
        let text = ChatMessages.final(
            record(
                status: .finished, exitCode: 0,
                layers: [("logic", .merge, .passed), ("shortcuts", .release, .awaitingSignoff)]))
        XCTAssertTrue(text.hasPrefix("✅ run `20261129-140312-7f3a` finished: merge gate passed (exit 0)"), text)
        XCTAssertTrue(text.contains("release checklists awaiting sign-off: `shortcuts`"), text)
        XCTAssertTrue(text.contains("/pipe signoff 20261129-140312-7f3a &lt;layer&gt; pass|fail"), text)
        let early = ChatMessages.final(
            record(
                status: .finished, exitCode: 3, layers: [("logic", .merge, .infrastructure)],
                problem: "host mac-1 unreachable"))
        XCTAssertTrue(
            early.contains("without a verdict on the app") && early.contains("> host mac-1 unreachable"), early)
        XCTAssertTrue(
            ChatMessages.final(record(status: .interrupted, exitCode: nil, layers: [])).contains("was interrupted"))
    }

    func testTheMergeGateVerdictLeadsTheMarkdownSummary() {
        let failed = ChatMessages.mergeGate(
            record(
                status: .running, exitCode: nil,
                layers: [("logic", .merge, .testsFailed), ("intent", .merge, .passed), ("shortcuts", .release, nil)]))
        XCTAssertTrue(failed.hasPrefix("❌ merge gate failed: the app's build or tests failed"), failed)
        XCTAssertTrue(failed.contains("| logic | merge |"), failed)
        let host = ChatMessages.mergeGate(
            record(status: .running, exitCode: nil, layers: [("logic", .merge, .hostConfig)]))
        XCTAssertTrue(host.hasPrefix("⚠️ merge gate not judged: host configuration"), host)
    }

    func testValuesFromTheRunCannotTurnIntoMarkup() {
        let text = ChatMessages.status(record(status: .running, exitCode: nil, layers: []))
        XCTAssertTrue(text.contains("app-intents @ feature/&lt;b&gt;&amp;co · running"), text)
        XCTAssertFalse(text.contains("<b>"))
    }

    /// The merge gate's summary carries the failure's screenshot path and the coverage table; the status the
    /// coverage per layer.
    func testCoverageAndAttachmentsReachTheChat() {
        var run = record(status: .finished, exitCode: 1, layers: [("logic", .merge, .testsFailed)])
        var attempt = RunRecord.AttemptRecord(attempt: 1, startedAt: "2026-11-29T14:03:12Z")
        attempt.facts = ["coverage.Reader.app": "145/200"]
        var screenshot = ArtifactRecord(kind: .attachment, path: "artifacts/r/logic/shot.png", bytes: 73)
        screenshot.attachment = AttachmentFacts(
            testIdentifier: "S/t()", name: "shot", claimedType: "image/png", detectedType: "image/png",
            associatedWithFailure: true)
        attempt.artifacts = [screenshot]
        run.layers[0].attempts = [attempt]
        run.layers[0].tests = [TestCaseResult(identifier: "S/t()", status: .failed, failureMessage: "boom")]
        let summary = ChatMessages.mergeGate(run)
        XCTAssertTrue(summary.contains("attached: `artifacts/r/logic/shot.png` (image/png, 73 B)"), summary)
        XCTAssertTrue(summary.contains("| logic | `Reader.app` | 145 / 200 | 72.5% | — |"), summary)
        XCTAssertTrue(ChatMessages.status(run).contains("· coverage `Reader.app` 72.5%"), ChatMessages.status(run))
    }
}
