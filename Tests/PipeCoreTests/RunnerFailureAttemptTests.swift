import XCTest

@testable import PipeCore

final class RunnerFailureAttemptTests: XCTestCase {
    private let early = "Early unexpected exit, operation never finished bootstrapping"

    private func attempt(_ number: Int, _ failure: String, on simulator: String?) -> RunnerFailureAttempt {
        RunnerFailureAttempt(attempt: number, failure: failure, simulator: simulator, evidence: "runner: \(failure)")
    }

    func testTheSameFailureOnAnotherSimulatorNamesBothAttempts() {
        let evidence = attempt(2, early, on: "B").repeating(any: [attempt(1, early, on: "A")])
        XCTAssertEqual(
            evidence,
            [
                "the test runner never started on two simulators; the app may crash at launch",
                "attempt 1 on simulator A: runner: \(early)",
                "attempt 2 on simulator B: runner: \(early)",
            ])
    }

    func testTheSameSimulatorTwiceProvesNothingAboutTheApp() {
        XCTAssertNil(attempt(2, early, on: "A").repeating(any: [attempt(1, early, on: "A")]))
        XCTAssertNil(attempt(2, early, on: nil).repeating(any: [attempt(1, early, on: "A")]))
        XCTAssertNil(attempt(2, early, on: "B").repeating(any: [attempt(1, early, on: nil)]))
    }

    func testADifferentFailureOnAnotherSimulatorIsStillTheMachines() {
        XCTAssertNil(
            attempt(2, "Failed to background test runner", on: "B").repeating(any: [attempt(1, early, on: "A")]))
    }
}
