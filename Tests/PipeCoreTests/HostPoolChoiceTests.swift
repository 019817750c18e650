import Foundation
import PipeCore
import XCTest

final class HostPoolChoiceTests: XCTestCase {
    private let epoch = Date(timeIntervalSince1970: 1_795_000_000)  // 2026-11-18 11:06:40 UTC

    private func host(_ name: String, capacity: Int = 1) -> HostConfig {
        HostConfig(name: name, address: "10.0.0.1", user: "ci", knownHostsFile: "k", capacity: capacity)
    }

    private func health(
        _ name: String, usable: Bool, minutesAgo: Double = 1, latency: Double? = 0.004, failures: Int = 0,
        problem: String? = nil
    ) -> HostHealth {
        let checked = epoch.addingTimeInterval(-minutesAgo * 60)
        return HostHealth(
            host: name,
            latest: HostHealthRecord(
                host: name, checkedAt: checked, usable: usable, problem: problem, latencySeconds: latency,
                source: "pipe hosts check"),
            lastUsableAt: usable ? checked : nil, consecutiveFailures: failures)
    }

    private func names(_ choice: HostPoolChoice) -> [String] { choice.ranked.map(\.host.name) }

    func testMoreFreeSlotsComeFirstWhateverTheOrderGiven() {
        let choice = HostPoolChoice.rank([
            .init(host: host("mac-1", capacity: 2), leasedSlots: 1, health: nil),
            .init(host: host("mac-2", capacity: 4), leasedSlots: 1, health: nil),
            .init(host: host("mac-3", capacity: 1), leasedSlots: 0, health: nil),
        ])
        XCTAssertEqual(names(choice), ["mac-2", "mac-1", "mac-3"])
        XCTAssertEqual(choice.ranked.map(\.freeSlots), [3, 1, 1])
        XCTAssertEqual(choice.ranked[0].reason, "3 of 4 slots free; never health-checked")
        XCTAssertEqual(choice.excluded, [])
        XCTAssertNil(choice.explanation)
    }

    func testAtEqualFreeSlotsAPassedCheckBeatsNoCheckAndAFresherCheckBeatsAnOlderOne() {
        let choice = HostPoolChoice.rank([
            .init(host: host("never"), leasedSlots: 0, health: nil),
            .init(host: host("old"), leasedSlots: 0, health: health("old", usable: true, minutesAgo: 30)),
            .init(host: host("fresh"), leasedSlots: 0, health: health("fresh", usable: true, minutesAgo: 2)),
        ])
        XCTAssertEqual(names(choice), ["fresh", "old", "never"])
        XCTAssertEqual(
            choice.ranked[0].reason,
            "1 of 1 slot free; passed its health check at 2026-11-18 11:04:40 UTC (latency 4.0 ms)")
    }

    func testLatencyThenTheGivenOrderBreakTheLastTies() {
        let fast = health("fast", usable: true, latency: 0.002)
        let slow = health("slow", usable: true, latency: 0.150)
        XCTAssertEqual(
            names(
                HostPoolChoice.rank([
                    .init(host: host("slow"), leasedSlots: 0, health: slow),
                    .init(host: host("fast"), leasedSlots: 0, health: fast),
                ])), ["fast", "slow"])
        XCTAssertEqual(
            names(
                HostPoolChoice.rank([
                    .init(host: host("b"), leasedSlots: 0, health: nil),
                    .init(host: host("a"), leasedSlots: 0, health: nil),
                ])), ["b", "a"], "the pipeline's (or the hosts file's) order stands")
    }

    func testFreeCapacityWinsOverHealthHistory() {
        let choice = HostPoolChoice.rank([
            .init(host: host("checked", capacity: 2), leasedSlots: 1, health: health("checked", usable: true)),
            .init(host: host("unchecked", capacity: 2), leasedSlots: 0, health: nil),
        ])
        XCTAssertEqual(names(choice), ["unchecked", "checked"])
    }

    func testAHostWhoseLatestCheckFailedIsOutOfRotationUntilACheckPasses() {
        let failed = health(
            "mac-2", usable: false, latency: nil, failures: 3, problem: "unreachable: connection refused")
        let choice = HostPoolChoice.rank([
            .init(host: host("mac-1"), leasedSlots: 0, health: nil),
            .init(host: host("mac-2", capacity: 8), leasedSlots: 0, health: failed),
        ])
        XCTAssertEqual(names(choice), ["mac-1"], "eight free slots do not bring it back")
        XCTAssertEqual(choice.excluded.map(\.why), [.outOfRotation])
        XCTAssertEqual(
            choice.excluded[0].reason,
            "out of rotation: its health check failed at 2026-11-18 11:05:40 UTC (3 checks in a row): unreachable: "
                + "connection refused")

        let passedAgain = health("mac-2", usable: true)
        XCTAssertEqual(
            names(
                HostPoolChoice.rank([
                    .init(host: host("mac-1"), leasedSlots: 0, health: nil),
                    .init(host: host("mac-2", capacity: 8), leasedSlots: 0, health: passedAgain),
                ])), ["mac-2", "mac-1"])
    }

    func testWhenNothingCanTakeTheRunTheExplanationNamesEachHostAndWhatToDo() throws {
        let choice = HostPoolChoice.rank([
            .init(host: host("mac-1", capacity: 2), leasedSlots: 2, health: health("mac-1", usable: true)),
            .init(
                host: host("mac-2"), leasedSlots: 0,
                health: health("mac-2", usable: false, failures: 1, problem: "disk: 120 MB free")),
        ])
        XCTAssertEqual(choice.ranked, [])
        XCTAssertEqual(choice.excluded.map(\.why), [.busy, .outOfRotation])
        let explanation = try XCTUnwrap(choice.explanation)
        for part in [
            "mac-1: all 2 slots leased by runs in progress",
            "mac-2: out of rotation: its health check failed at 2026-11-18 11:05:40 UTC: disk: 120 MB free",
            "raise `capacity`", "`pipe hosts check` puts a host back in rotation",
        ] {
            XCTAssertTrue(explanation.contains(part), "'\(part)' missing from: \(explanation)")
        }
    }

    func testMoreLeasesThanCapacityCountAsBusyNotNegative() {
        // A capacity lowered in the hosts file while runs hold more slots than it now allows.
        let choice = HostPoolChoice.rank([.init(host: host("mac-1", capacity: 1), leasedSlots: 3, health: nil)])
        XCTAssertEqual(choice.ranked, [])
        XCTAssertEqual(choice.excluded.first?.why, .busy)
    }
}
