import Foundation
import PipeBasics
import PipeCore
import PipeForge

/// Values the outgoing tests share.
enum ForgeFixtures {
    static let sha = try! CommitSHA("1a2b3c4d5e6f708192a3b4c5d6e7f8091a2b3c4d")
    static let newerSHA = try! CommitSHA("9f8e7d6c5b4a39281706f5e4d3c2b1a09f8e7d6c")
    static let runID = RunID("20261202-170501-7f3a")!

    static func repository(_ forge: ForgeKind) -> ForgeRepository {
        forge == .gitlab
            ? ForgeRepository(forge: .gitlab, owner: "ios/apps", name: "reader")
            : ForgeRepository(forge: forge, owner: "acme", name: "reader")
    }

    /// One report of every state.
    static let everyState: [ForgeGateReport.State] = [
        .queued, .running, .awaitingSignoff(checklists: ["shortcuts"]), .passed(tests: 19),
        .appFailed(.init(layer: "intent", failedTests: 2, totalTests: 19, reason: "tests-failed")),
        .couldNotJudge(.hostConfig, reason: "scheme Reader is not shared"),
        .couldNotJudge(.infrastructure, reason: "host mac-1 unreachable"),
        .couldNotJudge(.pluginError, reason: "pipe-layer-lint exited 70"),
        .couldNotJudge(.refused, reason: "SIM_UDID is not set"), .cancelled, .superseded(by: newerSHA),
    ]

    static func report(_ state: ForgeGateReport.State, gate: Gate = .merge) -> ForgeGateReport {
        ForgeGateReport(pipeline: "app-intents", gate: gate, state: state, runID: runID)
    }

    static func failingTests(_ count: Int, message: String = "XCTAssertEqual failed: (\"\") is not equal to (\"x\")")
        -> [ForgeFailingTest]
    {
        (0..<count).map {
            ForgeFailingTest(
                layer: "intent", name: "ReaderTests.testCase\($0)()", message: message,
                file: "Tests/ReaderTests/ReaderTests.swift", line: 10 + $0)
        }
    }

    static func comment(
        tests: [ForgeFailingTest] = failingTests(2), checklists: [ForgeChecklist] = []
    ) -> PullRequestComment {
        PullRequestComment(
            pipeline: "app-intents", runID: runID, sha: sha,
            gates: [
                report(.appFailed(.init(layer: "intent", failedTests: tests.count, totalTests: 19, reason: ""))),
                report(.awaitingSignoff(checklists: ["shortcuts"]), gate: .release),
            ],
            failingTests: tests, checklists: checklists, runURL: "https://pipe.example/runs/\(runID.value)")
    }

    /// A clock that only moves when told to, and records what was slept.
    final class ManualClock: ForgeClock, @unchecked Sendable {
        private let lock = NSLock()
        private var current: Date
        private(set) var slept: [Double] = []

        init(_ start: Date = Date(timeIntervalSince1970: 1_800_000_000)) { current = start }

        func now() -> Date { lock.withLock { current } }

        func sleep(seconds: Double) {
            lock.withLock {
                slept.append(seconds)
                current = current.addingTimeInterval(seconds)
            }
        }

        func advance(_ seconds: Double) { lock.withLock { current = current.addingTimeInterval(seconds) } }
    }
}
