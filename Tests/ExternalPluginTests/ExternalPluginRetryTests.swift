import ExternalPlugin
import Foundation
import PipeCore
import PipeTestSupport
import XCTest

/// A test retry handed to real plugin processes of each protocol version: protocol 2 gets the failed tests, a plugin
/// of protocol 1 gets the request it always got.
final class ExternalPluginRetryTests: SharedHostTestCase {

    private let failed = TestCaseResult(identifier: "Suite/testTwo", status: .failed, target: "LintTests")

    /// Attempt 1, then attempt 2 as the engine makes a test retry (`testsToRetry` the failed test).
    private func attempts(of fixture: String) throws -> (first: LayerResult, retry: LayerResult) {
        let shared = try XCTUnwrap(Self.shared, "no emulated host")
        let project = try PluginProject()
        try project.install(fixture, as: "lint")
        var context = try project.context(kind: "lint", host: shared.remote, events: EventRecorder())
        let first = try ExternalLayerPlugin().run(context)
        context.attempt = 2
        context.testsToRetry = [failed]
        return (first, try ExternalLayerPlugin().run(context))
    }

    func testAProtocol2PluginGetsTheFailedTestsAndRunsOnlyThem() throws {
        let (first, retry) = try attempts(of: "retrier-v2")
        XCTAssertEqual(first.outcome, .testsFailed, first.evidenceText)
        XCTAssertEqual(first.facts["requestProtocol"], "2")
        XCTAssertEqual(first.facts["protocolEnv"], "2")
        XCTAssertEqual(first.facts["pluginProtocol"], "2")
        XCTAssertEqual(first.facts["retried"], "", "a first attempt retries nothing")
        XCTAssertEqual(first.tests.map(\.target), ["LintTests", "LintTests", "LintTests"])

        XCTAssertEqual(retry.outcome, .passed, retry.evidenceText)
        XCTAssertEqual(retry.facts["retried"], "LintTests/Suite/testTwo")
        XCTAssertEqual(retry.tests, [TestCaseResult(identifier: "Suite/testTwo", status: .passed, target: "LintTests")])
        let merge = TestRetryMerge(previous: first.tests, retry: retry.tests)
        XCTAssertEqual(merge.tests.map(\.status), [.passed, .passed, .passed])
        XCTAssertEqual(merge.tests.count, 3, "never doubled")
    }

    func testAProtocol1PluginGetsAProtocol1RequestAndItsWholeRerunMerges() throws {
        let (first, retry) = try attempts(of: "retrier-v1")
        for result in [first, retry] {
            XCTAssertEqual(result.facts["requestProtocol"], "1")
            XCTAssertEqual(result.facts["protocolEnv"], "1")
            XCTAssertEqual(result.facts["pluginProtocol"], "1")
            XCTAssertEqual(result.facts["sawTestsToRetry"], "False", "protocol 1 has no testsToRetry")
        }
        XCTAssertEqual(first.outcome, .testsFailed, first.evidenceText)
        XCTAssertEqual(retry.outcome, .passed, retry.evidenceText)
        XCTAssertEqual(retry.tests.count, 3, "it ran every test again")
        let merge = TestRetryMerge(previous: first.tests, retry: retry.tests)
        XCTAssertEqual(merge.tests, retry.tests)
        XCTAssertEqual(merge.failedAndNotRetried, [])
    }
}
