import PipeCore
import XCTest

final class MergeVerdictTests: XCTestCase {
    private func verdict(_ outcomes: [LayerOutcome], flaky: FlakyPolicy = .allow, cancelled: Bool = false)
        -> PipeExitCode
    {
        PipeExitCode.mergeVerdict(outcomes: outcomes, flakyPolicy: flaky, userCancelled: cancelled)
    }

    func testPassedAndFlakyPassTheGate() {
        XCTAssertEqual(verdict([.passed, .passed]), .success)
        XCTAssertEqual(verdict([.passed, .flaky]), .success)
        XCTAssertEqual(verdict([]), .success)
    }

    func testFlakyFailsUnderBlockPolicy() {
        XCTAssertEqual(verdict([.passed, .flaky], flaky: .block), .appFailure)
    }

    func testAppFailuresExitOne() {
        for outcome in [LayerOutcome.testsFailed, .buildFailed, .timedOut] {
            XCTAssertEqual(verdict([.passed, outcome]), .appFailure, outcome.rawValue)
        }
    }

    func testEnvironmentFailuresExitThree() {
        for outcome in [LayerOutcome.hostConfig, .infrastructure, .pluginError] {
            XCTAssertEqual(verdict([.passed, outcome]), .environmentFailure, outcome.rawValue)
        }
    }

    func testAProvenAppFailureWinsOverAnEnvironmentFailure() {
        XCTAssertEqual(verdict([.infrastructure, .testsFailed]), .appFailure)
        XCTAssertEqual(verdict([.hostConfig, .skipped, .buildFailed]), .appFailure)
    }

    func testCancellationWinsOverEverything() {
        XCTAssertEqual(verdict([.testsFailed, .cancelled]), .cancelled)
        XCTAssertEqual(verdict([.testsFailed, .infrastructure], cancelled: true), .cancelled)
    }

    func testOutcomeRawValuesAreTheDocumentedVocabulary() {
        XCTAssertEqual(
            LayerOutcome.allCases.map(\.rawValue),
            [
                "passed", "flaky", "tests-failed", "build-failed", "timed-out", "host-config", "infrastructure",
                "plugin-error", "skipped", "cancelled", "awaiting-signoff", "signed-off", "rejected",
            ])
        XCTAssertEqual(
            RunStatus.allCases.map(\.rawValue), ["queued", "running", "finished", "cancelled", "interrupted"])
    }
}
