import Foundation
import PipeForge
import XCTest

/// A check run's steps: the stored id, else found by `external_id` from Pipe's app, else created; annotations only
/// with the final state.
final class GitHubCheckRunUpdateTests: XCTestCase {
    private let now = Date(timeIntervalSince1970: 1_800_000_000)

    private func updater(_ state: ForgeGateReport.State, tests: Int = 0, sent: Int = 0) -> GitHubCheckRunUpdate {
        let run = GitHubCheckRun(
            repository: ForgeFixtures.repository(.github), report: ForgeFixtures.report(state), sha: ForgeFixtures.sha,
            failingTests: ForgeFixtures.failingTests(tests))
        return GitHubCheckRunUpdate(checkRun: run, appID: 42, now: now, annotationsSent: sent)
    }

    private func listing(_ runs: [(id: Int, externalID: String, app: Int)]) -> ForgeResponse {
        let items = runs.map {
            #"{"id":\#($0.id),"external_id":"\#($0.externalID)","app":{"id":\#($0.app)},"head_sha":"\#(ForgeFixtures.sha)"}"#
        }
        return ForgeResponse(status: 200, body: Array(#"{"check_runs":[\#(items.joined(separator: ","))]}"#.utf8))
    }

    func testARunningGateIsCreatedWithoutAnnotationsWhenNoneIsFound() throws {
        let running = updater(.running, tests: 3)
        guard case .send(let list, .find(page: 1)) = try running.first(storedCheckRunID: nil) else { return XCTFail() }
        XCTAssertEqual(list.query.first { $0.0 == "app_id" }?.1, "42")
        let external = running.checkRun.externalID
        let step = try running.next(after: .find(page: 1), response: listing([(1, external, 666)]))
        guard case .send(let create, .create) = step else {
            return XCTFail("another app's check run is not ours: \(step)")
        }
        XCTAssertNil(create.body?["output"]?["annotations"])
        XCTAssertEqual(create.body?["status"]?.stringValue, "in_progress")
        let created = ForgeResponse(status: 201, body: Array(#"{"id":31}"#.utf8))
        XCTAssertEqual(
            try running.next(after: .create, response: created),
            .done(checkRunID: 31, annotationBatches: [], annotationsHeld: 0))
    }

    func testTheFinalStateUpdatesTheFoundCheckRunAndLeavesEveryAnnotationToBatches() throws {
        let failed = updater(.appFailed(.init(layer: "intent", failedTests: 70, reason: "")), tests: 70)
        let step = try failed.next(after: .find(page: 1), response: listing([(8, failed.checkRun.externalID, 42)]))
        guard case .send(let update, .update(checkRunID: 8, stored: false)) = step else { return XCTFail("\(step)") }
        XCTAssertEqual(update.body?["conclusion"]?.stringValue, "failure")
        XCTAssertNil(update.body?["output"]?["annotations"])
        guard
            case .done(8, let batches, 0) = try failed.next(
                after: .update(checkRunID: 8, stored: false), response: ForgeResponse(status: 200))
        else { return XCTFail() }
        XCTAssertEqual(batches.map { $0.body?["output"]?["annotations"]?.arrayValue?.count }, [50, 20])
    }

    func testACheckRunThatHoldsSomeAnnotationsIsSentOnlyTheRest() throws {
        let failed = updater(.appFailed(.init(layer: "intent", failedTests: 70, reason: "")), tests: 70, sent: 50)
        guard
            case .done(8, let batches, 50) = try failed.next(
                after: .update(checkRunID: 8, stored: true), response: ForgeResponse(status: 200))
        else { return XCTFail() }
        XCTAssertEqual(batches.map { $0.body?["output"]?["annotations"]?.arrayValue?.count }, [20])
        let complete = updater(.appFailed(.init(layer: "intent", failedTests: 70, reason: "")), tests: 70, sent: 70)
        guard
            case .done(8, let none, 70) = try complete.next(
                after: .update(checkRunID: 8, stored: true), response: ForgeResponse(status: 200))
        else { return XCTFail() }
        XCTAssertEqual(none, [], "a check run that holds them all gets none again")
    }

    func testACreatedFinalCheckRunCarriesTheFirst50() throws {
        let failed = updater(.appFailed(.init(layer: "intent", failedTests: 70, reason: "")), tests: 70)
        guard case .send(let create, .create) = try failed.next(after: .find(page: 1), response: listing([])) else {
            return XCTFail()
        }
        XCTAssertEqual(create.body?["output"]?["annotations"]?.arrayValue?.count, 50)
        guard
            case .done(9, let batches, 50) = try failed.next(
                after: .create, response: ForgeResponse(status: 201, body: Array(#"{"id":9}"#.utf8)))
        else { return XCTFail() }
        XCTAssertEqual(batches.map { $0.body?["output"]?["annotations"]?.arrayValue?.count }, [20])
    }

    func testAStoredIDThatIsGoneIsSearchedFor() throws {
        let passed = updater(.passed(tests: 19))
        guard case .send(_, .update(checkRunID: 5, stored: true)) = try passed.first(storedCheckRunID: 5) else {
            return XCTFail()
        }
        guard
            case .send(_, .find(page: 1)) = try passed.next(
                after: .update(checkRunID: 5, stored: true), response: ForgeResponse(status: 404))
        else { return XCTFail() }
        let refused = try passed.next(
            after: .update(checkRunID: 5, stored: false),
            response: ForgeResponse(
                status: 403, body: Array(#"{"message":"Resource not accessible by integration"}"#.utf8)))
        XCTAssertEqual(
            refused,
            .failed(ForgeFailure(forge: .github, status: 403, message: "Resource not accessible by integration")))
    }
}
