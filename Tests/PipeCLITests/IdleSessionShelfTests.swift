import PipeCore
import XCTest

@testable import PipeCLI

/// Which idle session a run takes, and which ones close: the decisions of the controller's warm SSH sessions.
final class IdleSessionShelfTests: XCTestCase {
    private let mac1 = HostConfig(name: "mac-1", address: "10.0.0.1", user: "ci", knownHostsFile: "k", capacity: 2)
    private let mac2 = HostConfig(name: "mac-2", address: "10.0.0.2", user: "ci", knownHostsFile: "k", capacity: 1)

    private func entry(_ host: HostConfig, _ session: String, idleSince: Double) -> IdleSessionShelf<String>.Entry {
        .init(host: host, session: session, openedAt: idleSince - 5, idleSince: idleSince)
    }

    func testARunTakesTheSessionOfItsHostGivenBackLast() {
        var shelf = IdleSessionShelf<String>()
        XCTAssertEqual(shelf.put(entry(mac1, "a", idleSince: 100), cap: 2, limit: 60).count, 0)
        XCTAssertEqual(shelf.put(entry(mac2, "b", idleSince: 101), cap: 1, limit: 60).count, 0)
        XCTAssertEqual(shelf.put(entry(mac1, "c", idleSince: 102), cap: 2, limit: 60).count, 0)
        XCTAssertEqual(shelf.take(mac1, now: 110, limit: 60).taken?.session, "c")
        XCTAssertEqual(shelf.take(mac1, now: 110, limit: 60).taken?.session, "a")
        XCTAssertNil(shelf.take(mac1, now: 110, limit: 60).taken)
        XCTAssertEqual(shelf.entries.map(\.session), ["b"])
    }

    func testAChangedHostConfigurationMatchesNoWaitingSession() {
        var shelf = IdleSessionShelf<String>()
        _ = shelf.put(entry(mac1, "a", idleSince: 100), cap: 2, limit: 60)
        var moved = mac1
        moved.port = 2222
        XCTAssertNil(shelf.take(moved, now: 101, limit: 60).taken)
        // Given back under the new configuration, the old one's sessions close: no run asks for them any more.
        let closing = shelf.put(entry(moved, "b", idleSince: 102), cap: 2, limit: 60)
        XCTAssertEqual(closing.map(\.session), ["a"])
        XCTAssertEqual(shelf.take(moved, now: 103, limit: 60).taken?.session, "b")
    }

    func testSessionsIdleForTheLimitCloseAndAreNeverTaken() {
        var shelf = IdleSessionShelf<String>()
        _ = shelf.put(entry(mac1, "old", idleSince: 100), cap: 2, limit: 60)
        _ = shelf.put(entry(mac2, "young", idleSince: 130), cap: 1, limit: 60)
        XCTAssertEqual(shelf.nextExpiry(limit: 60), 160)
        let (taken, expired) = shelf.take(mac1, now: 160, limit: 60)
        XCTAssertNil(taken, "idle exactly the limit: closed")
        XCTAssertEqual(expired.map(\.session), ["old"])
        XCTAssertEqual(shelf.nextExpiry(limit: 60), 190)
        XCTAssertEqual(shelf.expire(now: 189.9, limit: 60).count, 0)
        XCTAssertEqual(shelf.expire(now: 190, limit: 60).map(\.session), ["young"])
        XCTAssertNil(shelf.nextExpiry(limit: 60))
    }

    func testAtMostTheHostsCapacityWaitTheLongestIdleCloseFirst() {
        var shelf = IdleSessionShelf<String>()
        _ = shelf.put(entry(mac1, "a", idleSince: 100), cap: 2, limit: 60)
        _ = shelf.put(entry(mac1, "b", idleSince: 101), cap: 2, limit: 60)
        _ = shelf.put(entry(mac2, "x", idleSince: 101), cap: 1, limit: 60)
        XCTAssertEqual(shelf.put(entry(mac1, "c", idleSince: 102), cap: 2, limit: 60).map(\.session), ["a"])
        XCTAssertEqual(shelf.entries.map(\.session), ["b", "x", "c"])
        // A capacity below 1 still keeps one.
        XCTAssertEqual(shelf.put(entry(mac1, "d", idleSince: 103), cap: 0, limit: 60).map(\.session), ["b", "c"])
        XCTAssertEqual(shelf.entries.map(\.session), ["x", "d"])
    }

    func testALimitOfZeroKeepsNothing() {
        var shelf = IdleSessionShelf<String>()
        _ = shelf.put(entry(mac1, "a", idleSince: 100), cap: 2, limit: 60)
        XCTAssertEqual(shelf.put(entry(mac1, "b", idleSince: 101), cap: 2, limit: 0).map(\.session), ["b"])
        XCTAssertEqual(shelf.expire(now: 101, limit: 0).map(\.session), ["a"], "a lowered limit closes the waiting")
        XCTAssertNil(shelf.take(mac1, now: 101, limit: 0).taken)
    }
}
