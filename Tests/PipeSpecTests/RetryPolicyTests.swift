import Foundation
import PipeCore
import PipeSpec
import XCTest

/// `retry:` of a pipeline and of its layers.
final class RetryPolicyTests: XCTestCase {
    func testDefaultsRetryInfrastructureOnceAndNothingElse() throws {
        let pipeline = try SpecFixtures.loader.load(
            yaml: "layers:\n  logic:\n    plugin: xcodebuild-test\n    scheme: Reader\n", file: "pipelines/p.yml")
        XCTAssertEqual(pipeline.retry, RetryPolicy(infrastructure: 1, timedOut: 0, tests: 0, backoffSeconds: 2))
        XCTAssertEqual(pipeline.layers[0].retry, RetryOverrides())
    }

    func testALayerOverridesThePipelineFieldByField() throws {
        let yaml = """
            retry:
              infrastructure: 2
              backoff: 10s
            layers:
              logic:
                plugin: xcodebuild-test
                scheme: Reader
                retry:
                  tests: 3
                  backoff: 0
            """
        let pipeline = try SpecFixtures.loader.load(yaml: yaml, file: "pipelines/p.yml")
        let effective = pipeline.layers[0].retry.applied(to: pipeline.retry)
        XCTAssertEqual(effective, RetryPolicy(infrastructure: 2, timedOut: 0, tests: 3, backoffSeconds: 0))
    }

    func testRetryCountsAreBoundedAndKeysChecked() {
        let yaml = """
            retry:
              infrastucture: 1
              tests: 9
            layers:
              logic:
                plugin: xcodebuild-test
                scheme: Reader
            """
        XCTAssertThrowsError(try SpecFixtures.loader.load(yaml: yaml, file: "pipelines/p.yml")) { error in
            let text = "\(error)"
            XCTAssertTrue(text.contains("pipelines/p.yml:2:3: error: retry.infrastucture: unknown key"), text)
            XCTAssertTrue(text.contains("did you mean 'infrastructure'?"), text)
            XCTAssertTrue(text.contains("pipelines/p.yml:3:10: error: retry.tests: 9 retries"), text)
        }
    }

    func testFinalOutcomeAndBackoff() {
        XCTAssertEqual(RetryPolicy.finalOutcome(of: [.testsFailed, .passed]), .flaky)
        XCTAssertEqual(RetryPolicy.finalOutcome(of: [.infrastructure, .passed]), .passed)
        XCTAssertEqual(RetryPolicy.finalOutcome(of: [.testsFailed, .testsFailed]), .testsFailed)
        XCTAssertEqual(RetryPolicy.finalOutcome(of: [.infrastructure, .testsFailed, .passed]), .flaky)
        XCTAssertNil(RetryPolicy.finalOutcome(of: []))
        let policy = RetryPolicy(infrastructure: 1, timedOut: 1, tests: 2, backoffSeconds: 3)
        XCTAssertEqual(policy.retries(after: .buildFailed), 0)
        XCTAssertEqual(policy.retries(after: .hostConfig), 0)
        XCTAssertEqual(policy.retries(after: .testsFailed), 2)
        XCTAssertEqual([1, 2, 3].map(policy.backoff(beforeRetry:)), [3, 6, 12])
    }
}
