import PipeCore
import XCTest

/// A retry that ran only the failed tests, merged into the layer's tests: each test once, its last result.
final class TestRetryMergeTests: XCTestCase {
    private func test(_ name: String, _ status: TestCaseResult.Status, target: String? = "AppTests") -> TestCaseResult {
        TestCaseResult(identifier: "Suite/\(name)()", status: status, target: target)
    }

    func testTheRetrysResultReplacesTheFailedOneInPlaceAndTheOthersStay() {
        let previous = [test("a", .passed), test("b", .failed), test("c", .failed), test("d", .skipped)]
        let merge = TestRetryMerge(previous: previous, retry: [test("c", .passed), test("b", .failed)])
        XCTAssertEqual(
            merge.tests, [test("a", .passed), test("b", .failed), test("c", .passed), test("d", .skipped)])
        XCTAssertEqual(merge.replaced, [test("b", .failed), test("c", .failed)])
        XCTAssertEqual(merge.failedAndNotRetried, [])
    }

    func testTwoTargetsWithTheSameSuiteAreTwoTests() {
        let previous = [test("a", .failed, target: "AppTests"), test("a", .failed, target: "KitTests")]
        let merge = TestRetryMerge(previous: previous, retry: [test("a", .passed, target: "KitTests")])
        XCTAssertEqual(merge.tests, [test("a", .failed, target: "AppTests"), test("a", .passed, target: "KitTests")])
        XCTAssertEqual(merge.failedAndNotRetried, [test("a", .failed, target: "AppTests")])
    }

    /// A plugin that ran everything again (an external plugin of protocol 1) replaces every test, and one the
    /// earlier attempt never reached is added once.
    func testAWholeRerunReplacesEveryTestAndAddsNewOnesOnce() {
        let previous = [test("a", .passed), test("b", .failed)]
        let retry = [test("a", .passed), test("b", .passed), test("c", .passed)]
        let merge = TestRetryMerge(previous: previous, retry: retry)
        XCTAssertEqual(merge.tests, retry)
        XCTAssertEqual(merge.replaced, previous)
    }

    func testALogWithoutTargetsMatchesByIdentifierWhenUnambiguous() {
        let previous = [test("a", .failed, target: nil), test("b", .passed, target: nil)]
        let merge = TestRetryMerge(previous: previous, retry: [test("a", .passed)])
        XCTAssertEqual(merge.tests, [test("a", .passed), test("b", .passed, target: nil)])
        XCTAssertEqual(merge.tests.count, 2, "never doubled")
    }
}
