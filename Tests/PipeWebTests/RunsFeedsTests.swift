import Foundation
import PipeBasics
import PipeChatOps
import PipeCore
import PipeHTTP
import PipeStore
import PipeTestSupport
import XCTest

@testable import PipeWeb

/// The runs list's live feed over real HTTP from a real SQLite store: however many clients follow one filter (real
/// server-sent-event clients, curl), the store is read for it at most once a second.
final class RunsFeedsTests: XCTestCase {
    private var folder: URL!
    private var server: HTTPServer?
    private var clients: [EventClient] = []

    override func setUpWithError() throws {
        folder = FileManager.default.temporaryDirectory.appendingPathComponent("runs-feeds-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
    }

    override func tearDown() {
        for client in clients { client.stop() }
        server?.stop()
        try? FileManager.default.removeItem(at: folder)
        super.tearDown()
    }

    /// A curl following an event stream; counts the `rows` events and keeps the text.
    final class EventClient: @unchecked Sendable {
        private let process = Process()
        private let pipe = Pipe()
        private let lock = NSLock()
        private var text = ""

        init(_ url: String) throws {
            process.executableURL = URL(fileURLWithPath: "/usr/bin/curl")
            process.arguments = ["-sN", "--max-time", "60", url]
            process.standardOutput = pipe
            pipe.fileHandleForReading.readabilityHandler = { [weak self] handle in
                let data = handle.availableData
                guard let self, !data.isEmpty else { return }
                self.lock.lock()
                self.text += String(decoding: data, as: UTF8.self)
                self.lock.unlock()
            }
            try process.run()
        }

        var received: String {
            lock.lock()
            defer { lock.unlock() }
            return text
        }

        var rowEvents: Int { received.components(separatedBy: "event: rows\n").count - 1 }

        func stop() {
            if process.isRunning { process.terminate() }
            process.waitUntilExit()
            pipe.fileHandleForReading.readabilityHandler = nil
        }
    }

    final class NoBackend: WebBackend {
        let projectDirectory: URL
        init(_ folder: URL) { projectDirectory = folder }
        func checklist(run: StoredRun, layer: String) -> WebChecklist { WebChecklist(problem: "none here") }
        func signoff(_ request: WebSignoffRequest) throws -> WebSignoffReceipt { throw WebSignoffRefusal(["none"]) }
        func hosts() throws -> [ChatHostReport] { [] }
    }

    private func record(_ runID: String, pipeline: String) -> RunRecord {
        RunRecord(
            runID: runID, pipeline: pipeline, pipelineFile: "pipelines/\(pipeline).yml", status: .running,
            request: .init(
                pipeline: pipeline, ref: "HEAD", workspace: "examples/reader-app", parameters: [:],
                requestedBy: "alice", reason: "tests", trigger: "cli"),
            startedAt: UTCTimestamp.iso8601(RunID(runID)?.startTime ?? Date()),
            layers: [.init(name: "unit", plugin: "xcodebuild-test", gate: .merge)])
    }

    private func waitUntil(_ what: String, _ condition: () -> Bool) {
        let deadline = Date().addingTimeInterval(30)
        while !condition() {
            guard Date() < deadline else { return XCTFail("timed out waiting until \(what)") }
            Thread.sleep(forTimeInterval: 0.05)
        }
    }

    func testManyFollowersOfOneFilterShareOneReadOfTheStorePerSecond() throws {
        let store = try SQLiteRunStore(location: folder.appendingPathComponent("pipe.db"))
        let first = RunID.generate(at: Date(timeIntervalSince1970: 1_795_000_000)).value
        try store.createRun(record(first, pipeline: "app-intents"), owner: RunOwner.current())
        let endpoint = WebEndpoint(
            config: WebConfig(read: .anyone, plainHTTP: true), store: store, backend: NoBackend(folder),
            usersFile: nil, proxySecret: nil, log: { _ in })
        let server = try HTTPServer(
            listener: .tcp(address: "127.0.0.1", port: 0), limits: HTTPServerLimits(),
            endpoints: [endpoint.endpoint], observer: endpoint)
        self.server = server
        let began = Date()
        let base = "http://127.0.0.1:\(server.port)/runs/events"
        let all = try (0..<6).map { _ in try EventClient(base) }
        let others = try (0..<3).map { _ in try EventClient(base + "?pipeline=other") }
        clients = all + others
        waitUntil("every client has its first rows") { clients.allSatisfy { $0.rowEvents >= 1 } }
        XCTAssertTrue(all.allSatisfy { $0.received.contains(first) })
        XCTAssertEqual(endpoint.runsFeeds.count, 2, "one feed per distinct filter")

        let second = RunID.generate(at: Date(timeIntervalSince1970: 1_795_000_600)).value
        try store.createRun(record(second, pipeline: "app-intents"), owner: RunOwner.current())
        waitUntil("every follower of all runs sees the new one") {
            all.allSatisfy { $0.rowEvents >= 2 && $0.received.contains(second) }
        }
        let seconds = Date().timeIntervalSince(began)
        let reads = endpoint.runsFeeds.reads(WebRunsFilter(query: [:]))
        let otherReads = endpoint.runsFeeds.reads(WebRunsFilter(query: ["pipeline": "other"]))
        // Each client polling on its own would read once a second each: 6 × seconds.
        XCTAssertLessThanOrEqual(reads, Int(seconds) + 1, "\(reads) reads in \(seconds) s for 6 followers")
        XCTAssertLessThanOrEqual(otherReads, Int(seconds) + 1, "\(otherReads) reads in \(seconds) s")
        XCTAssertGreaterThanOrEqual(reads, 2, "read again to see the new run")
        XCTAssertTrue(others.allSatisfy { !$0.received.contains(second) }, "the other filter shows no app-intents run")
    }

    func testDistinctFiltersAreCappedAndAnIdleFeedMakesRoom() {
        let feeds = RunsFeeds(capacity: 2, periodSeconds: 1, idleSeconds: 60)
        let a = WebRunsFilter(query: ["pipeline": "a"])
        let b = WebRunsFilter(query: ["pipeline": "b"])
        let c = WebRunsFilter(query: ["pipeline": "c"])
        let followed = feeds.follow(a)
        XCTAssertNotNil(followed)
        XCTAssertNotNil(feeds.follow(b))
        XCTAssertNotNil(feeds.follow(a), "a second follower of a followed filter shares its feed")
        XCTAssertNil(feeds.follow(c), "a third distinct filter is refused while two are followed")
        if let followed {
            feeds.unfollow(followed)
            feeds.unfollow(followed)
        }
        XCTAssertNotNil(feeds.follow(c), "a feed nobody follows gives way")
        XCTAssertEqual(feeds.count, 2)
        XCTAssertEqual(feeds.reads(a), 0, "a's feed is gone")
    }

    func testAFeedNobodyFollowedForItsIdleTimeExpires() {
        let feeds = RunsFeeds(capacity: 10, periodSeconds: 1, idleSeconds: 60)
        let a = WebRunsFilter(query: ["pipeline": "a"])
        if let feed = feeds.follow(a) { feeds.unfollow(feed) }
        _ = feeds.follow(WebRunsFilter(query: ["pipeline": "b"]), now: Date().addingTimeInterval(30))
        XCTAssertEqual(feeds.count, 2, "idle for less than its idle time: kept")
        _ = feeds.follow(WebRunsFilter(query: ["pipeline": "c"]), now: Date().addingTimeInterval(61))
        XCTAssertEqual(feeds.count, 2, "a expired, b and c remain")
    }
}
