import Foundation
import PipeCore
import PipeTestSupport
import XCTest

@testable import PipeStore

/// A forge's runs of one pull request, branch or commit are found through an index, however many runs the queue
/// has kept: the intake never scans the queue, and no limit leaves an old run unseen.
final class ForgeQueueLookupTests: StoreTestCase {
    private let epoch = StoreFixtures.epoch
    private let filler = 12_000

    private func trigger(_ event: ForgeTrigger.Event, number: Int?, head: String, ref: String) -> ForgeTrigger {
        ForgeTrigger(
            forge: "github", repository: "o/r", event: event, number: number, headSHA: head, headBranch: "feature",
            fetchRef: ref)
    }

    private func enqueue(_ store: SQLiteRunStore, _ trigger: ForgeTrigger, pipeline: String = "app-intents")
        throws -> String
    {
        let request = QueueRequest(
            pipeline: pipeline, ref: trigger.headSHA, source: .forge, requestedBy: "github:octocat", forge: trigger)
        guard case .queued(let queued) = try store.enqueue(request, at: epoch) else {
            throw StoreError.invalidInput("not queued: \(request)")
        }
        return queued.runID
    }

    func testRunsOfOnePlaceAreFoundAmongManyOthersNewestFirst() throws {
        let store = try openStore()
        let head = String(repeating: "ab", count: 20)
        let oldest = try enqueue(store, trigger(.pullRequest, number: 7, head: head, ref: "refs/pull/7/head"))
        let push = try enqueue(store, trigger(.push, number: nil, head: head, ref: "refs/heads/main"))
        let raw = try rawDatabase()
        try raw.execute(ForgeQueueFiller.sql(count: filler, forge: "github", repository: "o/r"))
        raw.close()
        let newest = try enqueue(
            store, trigger(.pullRequest, number: 7, head: "cd" + head.dropFirst(2), ref: "refs/pull/7/head"))
        let elsewhere = try enqueue(
            store,
            ForgeTrigger(
                forge: "github", repository: "o/other", event: .pullRequest, number: 7, headSHA: head,
                headBranch: "x", fetchRef: "refs/pull/7/head"))

        XCTAssertEqual(try store.queueItems(states: nil, limit: 100_000).count, filler + 4)
        let pullRequest = try store.forgeQueueItems(
            forge: "github", repository: "o/r", place: .pullRequest(7), states: nil)
        XCTAssertEqual(pullRequest.map(\.runID), [newest, oldest], "the run queued before \(filler) others too")
        XCTAssertEqual(
            try store.forgeQueueItems(
                forge: "github", repository: "o/r", place: .pushes(fetchRef: "refs/heads/main"), states: nil
            )
            .map(\.runID), [push])
        XCTAssertEqual(
            try store.forgeQueueItems(forge: "github", repository: "o/r", place: .pullRequest(7), states: [.claimed]),
            [])
        XCTAssertEqual(
            try store.forgeQueueItems(forge: "gitlab", repository: "o/r", place: .pullRequest(7), states: nil), [])
        XCTAssertEqual(
            Set(try store.forgeQueueItems(forge: "github", headSHA: head.uppercased()).map(\.runID)),
            [oldest, push, elsewhere], "a commit is found whatever the case of its hex")
        XCTAssertEqual(
            try store.forgeQueueItems(forge: "github", repository: "o/r", place: .pullRequest(1000), states: nil).count,
            filler / 500)
    }

    func testTheLookupsUseTheirIndexes() throws {
        _ = try openStore()
        let raw = try rawDatabase()
        defer { raw.close() }
        try raw.execute(ForgeQueueFiller.sql(count: 1_000, forge: "github", repository: "o/r"))
        try raw.execute("ANALYZE")
        func plan(_ sql: String, _ values: [any SQLiteBindable]) throws -> String {
            try raw.query("EXPLAIN QUERY PLAN " + sql, values) { $0.text(3) ?? "" }.joined(separator: "; ")
        }
        let byPlace = try plan(
            SQLiteRunStore.forgePlaceQuery + " AND state IN (?, ?) ORDER BY seq DESC",
            ["github", "o/r", "pull-request:7", "claimed", "queued"])
        XCTAssertTrue(byPlace.contains("USING INDEX run_queue_by_forge_place"), byPlace)
        XCTAssertFalse(byPlace.contains("SCAN run_queue"), byPlace)
        let byHead = try plan(SQLiteRunStore.forgeHeadQuery, ["github", String(repeating: "a", count: 40)])
        XCTAssertTrue(byHead.contains("USING INDEX run_queue_by_forge_head"), byHead)
        XCTAssertFalse(byHead.contains("SCAN run_queue"), byHead)
    }

    func testAStoreOfSchemaSevenFindsItsEarlierForgeRunsOnceMigrated() throws {
        try FileManager.default.createDirectory(
            at: storeURL.deletingLastPathComponent(), withIntermediateDirectories: true)
        let raw = try SQLiteDatabase(path: storeURL.path)
        for migration in StoreSchema.migrations where migration.version <= 7 {
            try raw.executeScript(migration.sql)
        }
        try raw.execute("PRAGMA user_version = 7")
        try raw.execute("PRAGMA application_id = \(StoreSchema.applicationID)")
        try raw.execute(ForgeQueueFiller.sql(count: 3, forge: "github", repository: "o/r"))
        raw.close()

        let store = try openStore()
        XCTAssertEqual(try store.schemaVersion(), SQLiteRunStore.supportedSchemaVersion)
        let found = try store.forgeQueueItems(
            forge: "github", repository: "o/r", place: .pullRequest(1001), states: nil)
        XCTAssertEqual(found.map(\.request.forge?.number), [1001])
        XCTAssertEqual(found.first?.state, .finished)
        XCTAssertEqual(try store.forgeQueueItems(forge: "github", headSHA: String(format: "%040x", 2)).count, 1)
    }
}
